"""The table-session benchmark: whole sessions of every game through the real listen loop."""
