"""An adapter that says which python runs it, in a raised error it claims without starting the
server (so its run is graded crashed, the claim kept as evidence)."""
import json
import os
import sys


def main():
    where = "venv" if sys.prefix != sys.base_prefix else "no venv"
    print(json.dumps({"client": os.environ.get("ACME_NAME", "acme"), "library": "acme " + where,
                      "listed": False, "raised": {"class": "Probe", "message": "ran on " + sys.executable}}))


if __name__ == "__main__":
    main()
