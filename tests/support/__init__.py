"""Helpers the tests share (and bench/ reuses): a CLI runner, a loopback OpenAI-compatible server,
the kill-and-resume chaos loop with its store audit, and recorded Clue games. Tests import them as
`tests.support.<module>`; pyproject puts the repository root on pytest's path, so no test edits sys.path."""
