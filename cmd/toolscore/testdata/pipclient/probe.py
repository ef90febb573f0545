# Run as "python3 ./probe.py": it imports the module pip installed, so it runs only on the
# install's python.
import acme_adapter

acme_adapter.main()
