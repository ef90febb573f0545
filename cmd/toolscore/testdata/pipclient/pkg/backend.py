"""A PEP 517 backend of a few lines: a wheel of acme_adapter.py with its console script."""
import base64
import hashlib
import os
import zipfile

DIST = "acme_adapter-0.1.0"
HERE = os.path.dirname(os.path.abspath(__file__))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with open(os.path.join(HERE, "acme_adapter.py"), "rb") as f:
        module = f.read()
    files = {
        "acme_adapter.py": module,
        DIST + ".dist-info/METADATA": b"Metadata-Version: 2.1\nName: acme-adapter\nVersion: 0.1.0\n",
        DIST + ".dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: toolscore-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        DIST + ".dist-info/entry_points.txt": b"[console_scripts]\nacme-adapter = acme_adapter:main\n",
    }
    name = DIST + "-py3-none-any.whl"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append("%s,sha256=%s,%d" % (path, digest, len(data)))
        records.append(DIST + ".dist-info/RECORD,,")
        z.writestr(DIST + ".dist-info/RECORD", "\n".join(records) + "\n")
    return name
