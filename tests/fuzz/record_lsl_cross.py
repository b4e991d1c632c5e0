#!/usr/bin/env python3
# Records tests/fuzz/seeds/lsl_cross/door.cross: the byte stream a region
# sends when the example door crosses (run it whenever the crossing
# protocol, the program file or the snapshot format changes).
#   python3 tests/fuzz/record_lsl_cross.py PORT tests/fuzz/seeds/lsl_cross/door.cross build/test/gsvm
# This plays the destination (asks for every program, prepares, confirms)
# and keeps everything the sender wrote: offer, snapshots, END, programs,
# END, COMMIT, BYE (frame types as in src/lsl/region_cross.c).
import os, shutil, tempfile, socket, struct, json, sys, subprocess, threading
port = int(sys.argv[1]); out = sys.argv[2]
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port)); ls.listen(1)
rec = bytearray()
def run():
    c, _ = ls.accept()
    f = c.makefile("rb")
    def frame():
        h = f.read(5); n = struct.unpack("<I", h[:4])[0]; d = f.read(n - 1)
        rec.extend(h); rec.extend(d); return h[4], d
    def send(t, d=b""): c.sendall(struct.pack("<I", len(d) + 1) + bytes([t]) + d)
    t, d = frame(); offer = json.loads(d)
    while frame()[0] != 5: pass      # snapshots up to END
    hashes = []; need = []
    for i, s in enumerate(offer["scripts"]):
        if s["hash"] not in hashes: hashes.append(s["hash"]); need.append(i)
    send(2, json.dumps({"need": need}).encode())
    while frame()[0] != 5: pass      # programs up to END
    send(6, b"{}")
    frame()                          # COMMIT
    send(9)
    frame()                          # BYE
    c.close()
th = threading.Thread(target=run); th.start()
tmp = tempfile.mkdtemp(); timeline = os.path.join(tmp, "door.jsonl")
open(timeline, "w").write('{"touch": {"object": "door", "avatar": "7c1e2a44-0000-4000-8000-00000000a11c", "name": "Alice"}}\n{"advance_ms": 700}\n{"cross": {"object": "door", "port": %d}}\n' % port)
r = subprocess.run([sys.argv[3], "lsl", "region", "examples/lsl/region/world.json", "--no-cache", "--events", timeline], capture_output=True, text=True)
th.join()
print([l for l in r.stdout.splitlines() if "crossing" in l])
open(out, "wb").write(rec)
shutil.rmtree(tmp)
