"""What the cloud examples share: secrets from files, JSON over HTTP with a
bearer token, waiting for a cloud's asynchronous action, and telling the
panel a server's new address. Only the Python standard library is used."""

import json
import sys
import time
import urllib.error
import urllib.request


def read_secret(path):
    """A token from a file (mode 0600): never on the command line."""
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


def call(method, url, token, body=None):
    """One JSON call; an error status ends the run with what it said."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
    except urllib.error.HTTPError as err:
        detail = err.read().decode(errors="replace")[:300]
        sys.exit(f"{method} {url.split('?')[0]}: HTTP {err.code} {detail}")
    return json.loads(raw) if raw else {}


class Cloud:
    """A cloud API at `api`, with its token; `done` and `failed` are the
    states its actions end in, `actions` where an action is read back."""

    def __init__(self, api, token, done, failed, actions):
        self.api = api.rstrip("/")
        self.token = token
        self.done = done
        self.failed = failed
        self.actions = actions

    def __call__(self, method, path, body=None):
        return call(method, self.api + path, self.token, body)

    def wait(self, action, what):
        """Waits for an action to finish (clouds run them asynchronously)."""
        for _ in range(120):
            if action["status"] == self.done:
                return
            if action["status"] == self.failed:
                sys.exit(f"{what} failed: {action.get('error')}")
            time.sleep(1)
            action = self("GET", f"{self.actions}/{action['id']}")["action"]
        sys.exit(f"{what} did not finish in 2 minutes")


# The block kinds a new address fixes (PRODUCT.md section 8). Register the
# action with "kinds": ["ip", "throttled"]; this check is the second lock.
NEW_ADDRESS_FIXES = {"ip", "throttled"}


def read_event():
    """The event the panel writes on stdin; only a block a new address
    fixes calls for a move. An SNI block (a new SNI is the fix) or a
    blocked protocol (serve another transport first) ends the run at once,
    without a call to the cloud. Events of panels before the kinds carry
    none and are taken as address blocks, as they were then."""
    event = json.load(sys.stdin)
    if event["event"] != "blocked":
        sys.exit(f"nothing to do on {event['event']}")
    kinds = set(event.get("kinds") or ["ip"])
    if not kinds & NEW_ADDRESS_FIXES:
        print(f"{event['server_id']}: nothing to do, a new address does not fix a "
              f"{'/'.join(sorted(kinds))} block")
        sys.exit(0)
    return event


def tell_panel(panel, token_file, event, old, new):
    """PUTs the server back with every entry point on `old` moved to `new`:
    its peers probe the new address at their next report."""
    server = dict(event["server"])
    server["entry_points"] = [
        dict(e, host=new) if e["host"] == old else e for e in server["entry_points"]
    ]
    call("PUT", panel.rstrip("/") + "/api/v1/fleet", read_secret(token_file), {"servers": [server]})
    print(f"{event['server_id']}: {old} -> {new}")


def arguments(description, cloud_api):
    """The options both examples take."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--token-file", required=True, help="the cloud's API token")
    parser.add_argument("--panel", required=True, help="the panel's URL")
    parser.add_argument("--panel-token-file", required=True, help="a meshwatch API token")
    parser.add_argument("--api", default=cloud_api, help="the cloud API's URL")
    return parser.parse_args()
