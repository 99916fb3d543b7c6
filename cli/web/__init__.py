"""`trek serve`: the web application, its pages and its live stream (cli/serve.py loads it)."""
