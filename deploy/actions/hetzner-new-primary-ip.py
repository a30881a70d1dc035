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


def main():
    args = arguments(__doc__.split("\n")[0], "https://api.hetzner.cloud/v1")
    event = read_event()
    cloud = Cloud(args.api, read_secret(args.token_file), "success", "error", "/actions")

    found = cloud("GET", f"/servers?name={event['server_id']}")["servers"]
    if len(found) != 1:
        sys.exit(f"no Hetzner server named {event['server_id']}")
    server = found[0]
    ipv4 = server["public_net"]["ipv4"]
    old_id, old_ip = ipv4["id"], ipv4["ip"]

    cloud.wait(cloud("POST", f"/servers/{server['id']}/actions/poweroff")["action"], "power off")
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
    cloud.wait(cloud("POST", f"/servers/{server['id']}/actions/poweron")["action"], "power on")
    cloud("DELETE", f"/primary_ips/{old_id}")
    tell_panel(args.panel, args.panel_token_file, event, old_ip, new_ip)


if __name__ == "__main__":
    main()
