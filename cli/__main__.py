"""`python -m cli` runs the trek command line."""

from cli.main import main

main()
