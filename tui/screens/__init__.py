"""Modal screens: the catalog picker, dialogs."""
