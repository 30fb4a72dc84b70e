"""examples/char_lstm.py: the character LSTM's loss falls under `fit`, and its sample is
the same every run (seeded)."""


def test_char_lstm_loss_falls_and_sample_is_seeded(load_example, capsys):
    example = load_example("char_lstm")
    result = example.main(epochs=2, n_chars=1200, sample_length=12)  # a few seconds
    out = capsys.readouterr().out
    assert "epoch 2: loss" in out and "sample: " in out
    losses = result["losses"]
    assert losses[1] < losses[0], losses
    prompt = example.load_text(1200)[:example.SEQ]
    assert result["sample"].startswith(prompt) and len(result["sample"]) == len(prompt) + 12
