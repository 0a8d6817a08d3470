"""Fixtures of the federation tests: two Makestagram servers, mk-a.test and mk-b.test, on loopback addresses of
their own (federation_support.py)."""
import pytest

from federation_support import FederatedServer, HostNames, free_loopback_address


@pytest.fixture(scope="module")
def pair():
    names = HostNames()
    servers = []
    try:
        a, b = free_loopback_address(), free_loopback_address()
        names.add("mk-a.test", a)
        names.add("mk-b.test", b)
        servers.append(FederatedServer("mk-a.test", a))
        servers.append(FederatedServer("mk-b.test", b))
        yield servers
    finally:
        for server in servers:
            server.stop()
        names.remove()
