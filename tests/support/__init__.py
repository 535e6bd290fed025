"""What the tests share that is not a fixture: requests and events as clients send them, the servers under test
in threads, AWS faults, log records and the audit lines among them, a slow endpoint. The fixtures built on them
live in the conftest.py files."""
