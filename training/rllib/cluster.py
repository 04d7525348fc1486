"""Starting Ray here, or connecting to a running cluster within a bounded time."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import ray
from ray.exceptions import AuthenticationError

from hiddenhand.training.runs import TrainingError

DEFAULT_PORT = 6379


class ClusterError(TrainingError):
    """A Ray cluster address that does not answer, or is not a Ray cluster."""


def start(address: str | None, num_cpus: int, timeout_s: float) -> dict:
    """``ray.init``: in-process when ``address`` is empty (``num_cpus`` 0: all of this machine's),
    otherwise the cluster at ``address`` (``host:port`` of the head's GCS, ``ray://host:port`` or
    ``auto``), after checking within ``timeout_s`` seconds that it answers. Returns the cluster's
    resources."""
    runtime_env = {"env_vars": {"PYTHONWARNINGS": "ignore::DeprecationWarning"}}
    if address:
        if address != "auto":
            _check_reachable(address, timeout_s)
        apply_auth_settings()
        try:
            ray.init(address=address, runtime_env=runtime_env, logging_level="ERROR", log_to_driver=False)
        except AuthenticationError:
            raise ClusterError(f"could not join the Ray cluster at {address!r}: RAY_AUTH_MODE=token asks for token "
                               f"authentication, but no token is at hand; put the cluster's token (`ray "
                               f"get-auth-token` on its head) in RAY_AUTH_TOKEN or ~/.ray/auth_token") from None
        except (ConnectionError, RuntimeError, TimeoutError) as error:
            raise ClusterError(f"could not join the Ray cluster at {address!r}: {error}. Something answers there "
                               f"but not a Ray head of this version (ray {ray.__version__}) that accepts this driver; "
                               f"check the address `ray start --head` printed and, for a cluster with token "
                               f"authentication, RAY_AUTH_MODE=token with its token in RAY_AUTH_TOKEN or "
                               f"~/.ray/auth_token") from None
    else:
        reload_auth()  # not a token left from a cluster joined earlier in this process
        # "local": a new instance here, never one found running on this machine or named by RAY_ADDRESS
        ray.init(address="local", num_cpus=num_cpus or os.cpu_count(), include_dashboard=False,
                 runtime_env=runtime_env, logging_level="ERROR", log_to_driver=False)
    return ray.cluster_resources()


def apply_auth_settings() -> None:
    """Token authentication for joining a cluster: RAY_AUTH_MODE as set, else ``token`` when a token is
    at hand (as `ray start` does); re-read here, as Ray reads its settings once at import and caches the
    token it loaded (for an earlier cluster in this process)."""
    if "RAY_AUTH_MODE" not in os.environ and any(_tokens()):
        os.environ["RAY_AUTH_MODE"] = "token"
    reload_auth()


def reload_auth() -> None:
    """Make Ray re-read its authentication settings and token from the environment and files."""
    from ray._raylet import AuthenticationTokenLoader, Config

    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


def _tokens() -> tuple:
    """Where Ray looks for an authentication token: the environment, then ~/.ray/auth_token."""
    return (os.environ.get("RAY_AUTH_TOKEN"), os.environ.get("RAY_AUTH_TOKEN_PATH"),
            (Path.home() / ".ray" / "auth_token").is_file())


def _check_reachable(address: str, timeout_s: float) -> None:
    host_port = address.split("://", 1)[-1]
    host, _, port = host_port.rpartition(":")
    if not host:
        host, port = host_port, str(DEFAULT_PORT)
    try:
        number = int(port)
    except ValueError:
        raise ClusterError(f"Ray address {address!r}: expected host:port, e.g. 10.0.0.1:6379") from None
    try:
        with socket.create_connection((host, number), timeout=timeout_s):
            pass
    except OSError as error:
        raise ClusterError(f"no Ray cluster answers at {address!r} ({error or 'timed out'}) within {timeout_s:g}s: "
                           f"start one with `ray start --head --port={number}` on {host}, or leave --address "
                           f"and RAY_ADDRESS unset to train on this machine") from None


def env_runner_nodes(algo) -> list[str]:
    """The node id of each remote env runner (for checking where a run was placed)."""
    return algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id(),
                                                    local_env_runner=False)
