"""Credential scrubbing, kept under its old name: the home is `plylab.secrets` (the ground floor, so
`specs` and the store use it without loading the model door)."""

from ..secrets import REDACTED, credentials, install_log_scrubber, register_url, scrub, scrub_spec

__all__ = ["REDACTED", "credentials", "install_log_scrubber", "register_url", "scrub", "scrub_spec"]
