#!/usr/bin/env python3
"""meshwatch action: give a blocked Hetzner Cloud server a new primary IPv4.

Run by the panel on a "blocked" event (argv, no shell). It reads the event
as JSON on stdin, then, through the documented Hetzner Cloud API
(https://docs.hetzner.cloud/):

  1. GET  /servers?name=<meshwatch server id>      the server and its primary IP
  2. POST /servers/{id}/actions/poweroff           a primary IP changes only while off
  3. POST /primary_ips/{old}/actions/unassign
  4. POST /primary_ips                             a new IPv4, assigned to the server
  5. POST /servers/{id}/actions/poweron
  6. DELETE /primary_ips/{old}                     the blocked address is released
  7. PUT  <panel>/api/v1/fleet                     the server with its new address

Each action (steps 2, 3, 4, 5) is waited for through GET /actions/{id}.
Peers probe the new address at their next report.

It can be run again after it was stopped half-way (the panel records such
a run as interrupted and the operator runs it again): it reads where the
server stands and does only what is left. The blocked address is the one
the panel still has (the event's entry points): a server already on
another address only needs powering on, the old address released
(found with GET /primary_ips?ip=<old>) and the panel told; a server
without a primary IP gets its new one first. A server is never left off.

Usage (the action's command):
  hetzner-new-primary-ip.py --token-file /etc/meshwatch/hcloud-token \\
      --panel https://panel.example --panel-token-file /etc/meshwatch/action-api-token
Secrets are read from files (mode 0600), never from the command line.
Only the Python standard library is used (with meshwatch_action.py beside it).
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from meshwatch_action import Cloud, arguments, read_event, read_secret, tell_panel  # noqa: E402


def blocked_address(event):
    """The address the panel still has for the server: the blocked one."""
    hosts = [e["host"] for e in event["server"]["entry_points"]]
    if not hosts:
        sys.exit(f"{event['server_id']} has no entry point")
    return hosts[0]


def main():
    args = arguments(__doc__.split("\n")[0], "https://api.hetzner.cloud/v1")
    event = read_event()
    cloud = Cloud(args.api, read_secret(args.token_file), "success", "error", "/actions")
    old_ip = blocked_address(event)

    found = cloud("GET", f"/servers?name={event['server_id']}")["servers"]
    if len(found) != 1:
        sys.exit(f"no Hetzner server named {event['server_id']}")
    server = found[0]
    running = server.get("status", "running") != "off"
    current = (server.get("public_net") or {}).get("ipv4")
    old_id = current["id"] if current and current["ip"] == old_ip else None

    if current is None or current["ip"] == old_ip:
        if running:
            cloud.wait(cloud("POST", f"/servers/{server['id']}/actions/poweroff")["action"], "power off")
            running = False
        if current is not None:
            cloud.wait(cloud("POST", f"/primary_ips/{old_id}/actions/unassign")["action"], "unassign")
        created = cloud("POST", "/primary_ips", {
            "name": f"{event['server_id']}-{int(time.time())}",
            "type": "ipv4",
            "assignee_type": "server",
            "assignee_id": server["id"],
            "auto_delete": True,
        })
        if created.get("action"):
            cloud.wait(created["action"], "create the primary IP")
        new_ip = created["primary_ip"]["ip"]
    else:
        # An earlier run gave it its new address already.
        new_ip = current["ip"]
    if not running:
        cloud.wait(cloud("POST", f"/servers/{server['id']}/actions/poweron")["action"], "power on")
    if old_id is None:
        # Unassigned by an earlier run: released here if it is still kept.
        kept = cloud("GET", f"/primary_ips?ip={old_ip}")["primary_ips"]
        old_id = kept[0]["id"] if kept else None
    if old_id is not None:
        cloud("DELETE", f"/primary_ips/{old_id}")
    tell_panel(args.panel, args.panel_token_file, event, old_ip, new_ip)


if __name__ == "__main__":
    main()
