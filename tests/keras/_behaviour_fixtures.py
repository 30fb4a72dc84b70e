"""The Keras behaviour fixtures: each tests/keras/fixtures/<name>.json holds what Keras 3
showed for its cases module's `record(lib)` (tools/record_keras_behaviour.py writes them;
test_keras_behaviour.py runs the same `record` on tapeflow and compares).

name -> (cases module, whether its `record` takes the tf module rather than keras)."""

FIXTURES = {
    "input_dtypes": ("_input_dtype_cases", False),         # inputs take their Input's dtype
    "keras_tensor_names": ("_keras_tensor_name_cases", False),  # KerasTensor names
    "metric_names": ("_metric_name_cases", False),         # compiled metrics' log names
    "keras_config": ("_config_cases", True),               # set_epsilon, data formats, Flatten
    "sparse_layers": ("_sparse_layer_cases", True),        # layers on SparseTensors
    "auc_labels": ("_auc_label_cases", False),              # multi-label and weighted AUC
}
