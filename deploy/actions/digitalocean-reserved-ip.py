#!/usr/bin/env python3
"""meshwatch action: move a blocked DigitalOcean droplet to a new reserved IP.

The droplet's entry points use its reserved IP. On a "blocked" event this
reassigns it, through the documented DigitalOcean API
(https://docs.digitalocean.com/reference/api/):

  1. GET  /v2/droplets?name=<meshwatch server id>          the droplet
  2. GET  /v2/reserved_ips/<old>                            the blocked reserved IP
  3. POST /v2/reserved_ips/<old>/actions  {"type": "unassign"}
  4. POST /v2/reserved_ips  {"region": <its region>}        a new reserved IP
  5. POST /v2/reserved_ips/<new>/actions  {"type": "assign", "droplet_id": …}
  6. DELETE /v2/reserved_ips/<old>                          the blocked address is released
  7. PUT  <panel>/api/v1/fleet                              the server with its new address

Actions (steps 3 and 5) are waited for through GET /v2/actions/{id}. The old
address is the host of the server's first entry point in the event.

It can be run again after it was stopped half-way (the panel records such
a run as interrupted and the operator runs it again): a blocked address
an earlier run already unassigned (step 2 shows no droplet) is not
unassigned again, and the run goes on from step 4.

Usage (the action's command):
  digitalocean-reserved-ip.py --token-file /etc/meshwatch/do-token \\
      --panel https://panel.example --panel-token-file /etc/meshwatch/action-api-token
Secrets are read from files (mode 0600), never from the command line.
Only the Python standard library is used (with meshwatch_action.py beside it).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from meshwatch_action import Cloud, arguments, read_event, read_secret, tell_panel  # noqa: E402


def main():
    args = arguments(__doc__.split("\n")[0], "https://api.digitalocean.com")
    event = read_event()
    cloud = Cloud(args.api, read_secret(args.token_file), "completed", "errored", "/v2/actions")

    droplets = cloud("GET", f"/v2/droplets?name={event['server_id']}")["droplets"]
    if len(droplets) != 1:
        sys.exit(f"no droplet named {event['server_id']}")
    droplet = droplets[0]
    old_ip = event["server"]["entry_points"][0]["host"]
    reserved = cloud("GET", f"/v2/reserved_ips/{old_ip}")["reserved_ip"]
    region = reserved["region"]["slug"]

    if reserved.get("droplet"):
        unassigned = cloud("POST", f"/v2/reserved_ips/{old_ip}/actions", {"type": "unassign"})
        cloud.wait(unassigned["action"], "unassign")
    new_ip = cloud("POST", "/v2/reserved_ips", {"region": region})["reserved_ip"]["ip"]
    assigned = cloud("POST", f"/v2/reserved_ips/{new_ip}/actions",
                     {"type": "assign", "droplet_id": droplet["id"]})
    cloud.wait(assigned["action"], "assign")
    cloud("DELETE", f"/v2/reserved_ips/{old_ip}")
    tell_panel(args.panel, args.panel_token_file, event, old_ip, new_ip)


if __name__ == "__main__":
    main()
