"""Every test, and every process a test starts, runs with the relay and router port
mapping turned off (the network rule of docs/development.md): nothing may reach the
default relay, the machine's router or a multicast group. The lab's tests turn them on
inside the lab's own namespaces, with the lab's addresses."""

from __future__ import annotations

import os

os.environ["DBNET_RELAY"] = "off"
os.environ["DBNET_PORT_MAPPING"] = "off"
