"""Developer tools for tapeflow (not part of the installed package)."""
