"""Runners execute one agent turn each: in a tmux pane, or as a plain subprocess."""
