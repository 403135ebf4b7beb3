"""Entry point of the locally built Synapse image (docker/build-synapse-image.sh).

It follows the official image's contract for what the deploy flow uses: the configuration file named by
SYNAPSE_CONFIG_PATH (default /data/homeserver.yaml) is taken as it is. Without one, a configuration is
generated under SYNAPSE_DATA_DIR (default /tmp/synapse) for SYNAPSE_SERVER_NAME (default localhost), with
SQLite, one client listener on SYNAPSE_BIND:SYNAPSE_HTTP_PORT (default 127.0.0.1:8008), registration off
and rate limits raised, and its path is printed (the registration shared secret is in it, never printed).
Extra arguments are passed on to `python3 -m synapse.app.homeserver`.
"""
import json
import os
import subprocess
import sys

PYTHON = "/usr/bin/python3"
NO_LIMIT = {"per_second": 10000, "burst_count": 100000}


def generate(data_dir: str) -> list:
    server_name = os.environ.get("SYNAPSE_SERVER_NAME", "localhost")
    port = int(os.environ.get("SYNAPSE_HTTP_PORT", "8008"))
    bind = os.environ.get("SYNAPSE_BIND", "127.0.0.1")
    os.makedirs(data_dir, exist_ok=True)
    config = os.path.join(data_dir, "homeserver.yaml")
    if not os.path.exists(config):
        subprocess.run(
            [PYTHON, "-m", "synapse.app.homeserver", "--server-name", server_name, "--config-path", config,
             "--generate-config", "--report-stats=no", "--data-directory", data_dir, "--config-directory", data_dir],
            check=True, cwd=data_dir,
        )
    overrides = os.path.join(data_dir, "overrides.yaml")
    # JSON is YAML: no YAML writer needed.
    with open(overrides, "w", encoding="utf8") as f:
        json.dump({
            "listeners": [{"port": port, "tls": False, "type": "http", "x_forwarded": False,
                           "bind_addresses": [bind], "resources": [{"names": ["client"], "compress": False}]}],
            "report_stats": False,
            "enable_registration": False,
            "trusted_key_servers": [],
            "suppress_key_server_warning": True,
            "federation_domain_whitelist": [],
            "url_preview_enabled": False,
            "rc_message": NO_LIMIT,
            "rc_registration": NO_LIMIT,
            "rc_login": {"address": NO_LIMIT, "account": NO_LIMIT, "failed_attempts": NO_LIMIT},
        }, f, indent=2)
    print(f"synapse-entrypoint: generated {config} (+ {overrides}); its registration_shared_secret registers users", flush=True)
    return ["--config-path", config, "--config-path", overrides]


def main() -> None:
    config = os.environ.get("SYNAPSE_CONFIG_PATH", "/data/homeserver.yaml")
    if os.path.exists(config):
        args = ["--config-path", config]
    else:
        args = generate(os.environ.get("SYNAPSE_DATA_DIR", "/tmp/synapse"))
    os.execv(PYTHON, [PYTHON, "-m", "synapse.app.homeserver", *args, *sys.argv[1:]])


if __name__ == "__main__":
    main()
