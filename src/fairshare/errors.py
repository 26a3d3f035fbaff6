"""The one error type for a user's mistake, at the bottom of the package so that every layer can raise it.

A :class:`UserError` is something the user can fix (a config value, a missing input, a file to rebuild); the command
line prints it as one line, ``fairshare: error: <message>``, without a traceback. The errors of particular checks
(``ConfigError``, ``PartitionError``, ``DatasetUnavailableError``, ``CorruptFileError``) are subclasses of it.
"""

from __future__ import annotations

__all__ = ["UserError"]


class UserError(RuntimeError):
    """A failure a user can fix; printed as one line without a traceback."""
