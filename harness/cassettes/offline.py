"""What replaying cassettes needs from the environment when no AWS credentials are configured: dummy ones.

A boto3 client resolves credentials when it is created, down botocore's chain: environment, profiles and their
files, web identity, container, and last the EC2 instance metadata service (IMDS, ``PUT
http://169.254.169.254/latest/api/token``). On a CI machine with nothing configured only IMDS is left: vcrpy refuses
that request (and advises recording it), or, outside a cassette, the client waits on it and ends up with no
credentials at all. ``offline_environment`` gives such a machine dummy keys, a region and ``AWS_EC2_METADATA_DISABLED``
so that the chain stops at the environment and IMDS is never asked; where anything configures credentials (a
variable, a profile with keys, SSO, a role) it adds nothing, and ``AWS_EC2_METADATA_DISABLED=false`` (an instance
role wanted) opts out. Cheap: no botocore import, a few environment lookups and at most two small files read.
"""

from __future__ import annotations

import configparser
import contextlib
import os
from pathlib import Path
from typing import Iterator, Mapping, MutableMapping

__all__ = ["DUMMY_ENVIRONMENT", "configured_by", "offline_credentials", "offline_environment"]

# Shorter than the secret scan's environment minimum (harness.cassettes.secrets): a dummy is never a "secret".
DUMMY_ENVIRONMENT = {"AWS_ACCESS_KEY_ID": "offline", "AWS_SECRET_ACCESS_KEY": "offline",
                     "AWS_EC2_METADATA_DISABLED": "true"}
DEFAULT_REGION = "us-east-1"  # a replay matches on path and body, never on the host a region names
# Variables that configure credentials (or bearer auth) without any file.
_CREDENTIAL_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
                         "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                         "AWS_BEARER_TOKEN_BEDROCK")
_NOT_CREDENTIALS = {"region", "output", "cli_pager", "cli_history", "retry_mode", "max_attempts", "ca_bundle",
                    "defaults_mode", "endpoint_url"}  # keys a default profile may hold that give no credentials


def _files(environ: Mapping[str, str]) -> list[Path]:
    """The shared credentials and config files botocore reads (``~`` from ``HOME``)."""
    home = environ.get("HOME") or os.path.expanduser("~")
    credentials = environ.get("AWS_SHARED_CREDENTIALS_FILE") or os.path.join(home, ".aws", "credentials")
    config = environ.get("AWS_CONFIG_FILE") or os.path.join(home, ".aws", "config")
    return [Path(os.path.expanduser(credentials)), Path(os.path.expanduser(config))]


def _default_profile(path: Path) -> set[str] | None:
    """The keys ``path`` (an AWS credentials or config file) gives the default profile; None when the file exists but
    cannot be read (it is the user's: left alone, as if it gave credentials)."""
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return set()
        parser = configparser.RawConfigParser()
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, configparser.Error):
        return None
    return {key for section in ("default", "profile default") if parser.has_section(section)
            for key in parser.options(section)}


def configured_by(environ: Mapping[str, str]) -> str | None:
    """What configures AWS credentials in ``environ`` (a variable or a file), or None when only IMDS is left."""
    for name in _CREDENTIAL_VARIABLES:
        if environ.get(name):
            return name
    for path in _files(environ):
        keys = _default_profile(path)
        if keys is None or keys - _NOT_CREDENTIALS:
            return str(path)
    return None


def offline_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables that make replay need no credentials, when ``environ`` configures none (else empty); a region
    too when none is set (a variable, or the default profile's)."""
    if environ.get("AWS_EC2_METADATA_DISABLED", "").lower() == "false" or configured_by(environ):
        return {}
    regions = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or any(
        "region" in (_default_profile(path) or ()) for path in _files(environ))
    return {**DUMMY_ENVIRONMENT, **({} if regions else {"AWS_DEFAULT_REGION": DEFAULT_REGION})}


@contextlib.contextmanager
def offline_credentials(environ: MutableMapping[str, str] | None = None) -> Iterator[dict[str, str]]:
    """Within the block, ``offline_environment`` is in ``environ`` (default ``os.environ``); yields what it set.

    Create the boto3 clients inside the block: a client resolves its credentials when it is made."""
    environ = os.environ if environ is None else environ
    added = offline_environment(environ)
    environ.update(added)
    try:
        yield added
    finally:
        for name, value in added.items():
            if environ.get(name) == value:
                del environ[name]
