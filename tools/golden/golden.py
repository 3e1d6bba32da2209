# SPDX-License-Identifier: BSD-3-Clause
"""What the golden-vector scripts of tools/golden/ share (not lib/: these
checks stay independent of the code they check)."""

import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Addresses and payload bytes of the frame vectors.
MAC_A = "02:00:5e:10:00:01"
MAC_B = "02:00:5e:10:00:02"
IP_A = "198.18.0.1"
IP_B = "198.18.0.2"

# The inputs stamp_gen.c and stamp_auth_gen.c use, restated here so the
# checks are independent of them.
T1_NS = 1700000000123456789
T2_NS = 1700000000123500000
T3_NS = 1700000000123600001
NTP_EE = 0x8000 | 10 << 8 | 3
PTP_EE = 0x4000 | 1
SENDER_SEQ = 7
SSID = 0xBEEF
REFL_SEQ = 1000
TTL = 63


def pattern(n, seed=0):
    return bytes((seed + 7 * i) & 0xFF for i in range(n))


def no_scapy(prog):
    """After a failed scapy import: run again under Debian's python3 (a
    pyenv/venv python3 first in PATH does not see its dist-packages), or
    exit saying what is missing."""
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit(f"{prog}: needs scapy (apt-get install python3-scapy)")


def c_array(h, name, data):
    """A C array of data's bytes, eight a line, written to file h."""
    h.write(f"static const uint8_t {name}[] = {{\n")
    items = [f"0x{b:02x}" for b in data]
    for i in range(0, len(items), 8):
        h.write("\t" + ", ".join(items[i:i + 8]) + ",\n")
    h.write("};\n\n")


def write_vectors(outdir, header, lines, corpus_dir, corpus):
    """The header (its lines) and one corpus_dir/NAME.bin for each (NAME,
    bytes) of corpus, below outdir. Returns their paths, relative."""
    hp = os.path.join(outdir, header)
    os.makedirs(os.path.dirname(hp), exist_ok=True)
    with open(hp, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    cd = os.path.join(outdir, corpus_dir)
    os.makedirs(cd, exist_ok=True)
    names = [header]
    for name, data in corpus:
        with open(os.path.join(cd, name + ".bin"), "wb") as fh:
            fh.write(data)
        names.append(os.path.join(corpus_dir, name + ".bin"))
    return names
