"""Save a plot where matplotlib is installed (an optional extra: `pip install matplotlib`)."""


def save_plot(filename, draw, figsize=(6.4, 4.8)):
    """Call `draw(plt)` on a new figure and save it as `filename` in the current directory.

    Without matplotlib this does nothing, so the example prints the same either way.
    """
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")  # draw to a file; no display needed
    import matplotlib.pyplot as plt
    plt.figure(figsize=figsize)
    draw(plt)
    plt.tight_layout()
    plt.savefig(filename, dpi=100)
    plt.close()
    print(f"saved {filename}")
