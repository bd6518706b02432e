"""What runs inside a data-plane VM (netns) for ci/stack/dataplane.sh; plain python3, no venv.

  serve NAME PROTO PORT   answer each TCP connection / UDP datagram with "NAME\\n"
                          (TCP: the reply, then close); listens on every address (v4+v6);
                          PROTO echo: TCP, connections kept open, "NAME" at once, then each
                          line answered with "NAME <line>" (a thread per connection)
  probe PROTO HOST PORT COUNT INTERVAL_MS TIMEOUT_MS
                          COUNT attempts, one line each: "ok <answer>" (TCP: up to the first
                          newline or the close) or "fail <reason>"
                          (the errno's text, e.g. Connection_refused: a TCP reset or, for UDP,
                          an ICMP port unreachable; TimeoutError: no answer); "# ok=N fail=M"
  hold HOST PORT COUNT INTERVAL_MS TIMEOUT_MS
                          ONE TCP connection kept open: "connected <greeting>" (or "fail
                          <reason>" and exit), then COUNT lines sent, one each INTERVAL_MS,
                          each printed
                          "ok <answer>" when its answer came within TIMEOUT_MS, else "fail
                          <reason>" (the connection stays: a late answer is read by the next
                          line's wait and printed as "late <answer>"; after a reset every
                          later line fails at once); "# ok=N fail=M"

A tiny server on purpose: `python3 -m http.server` spends ~10 s in reverse DNS in a netns.
"""
import socket
import sys
import threading
import time


def reason(e):
    """An OSError in one word: its errno text (spaces made underscores), else its type."""
    return e.strerror.replace(" ", "_") if e.strerror else type(e).__name__


def echo_lines(name, conn):
    buf = b""
    try:
        conn.sendall(name.encode() + b"\n")
        while True:
            chunk = conn.recv(4096)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                conn.sendall(name.encode() + b" " + line + b"\n")
    except OSError:
        pass
    conn.close()


def serve(name, proto, port):
    reply = (name + "\n").encode()
    kind = socket.SOCK_DGRAM if proto == "udp" else socket.SOCK_STREAM
    s = socket.socket(socket.AF_INET6, kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", int(port)))
    if proto != "udp":
        s.listen(256)
    sys.stdout.write("listening\n")
    sys.stdout.flush()
    while True:
        if proto == "echo":
            c, _ = s.accept()
            threading.Thread(target=echo_lines, args=(name, c), daemon=True).start()
        elif proto == "tcp":
            c, _ = s.accept()
            try:
                c.sendall(reply)
            except OSError:
                pass
            c.close()
        else:
            _, peer = s.recvfrom(2048)
            s.sendto(reply, peer)


def once(proto, host, port, timeout):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    kind = socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM
    s = socket.socket(fam, kind)
    s.settimeout(timeout)
    try:
        if proto == "tcp":
            s.connect((host, port))
            data = b""
            while b"\n" not in data:
                chunk = s.recv(256)
                if not chunk:
                    break
                data += chunk
        else:
            # connected: an ICMP port unreachable comes back as ConnectionRefusedError
            # (a reset-like answer), a drop as a timeout
            s.connect((host, port))
            s.send(b"hello")
            data = s.recv(2048)
        text = data.decode(errors="replace").strip()
        return ("ok " + text) if text else "fail empty reply"
    except OSError as e:
        return "fail " + reason(e)
    finally:
        s.close()


def probe(proto, host, port, count, interval_ms, timeout_ms):
    ok = fail = 0
    for i in range(int(count)):
        t0 = time.monotonic()
        line = once(proto, host, int(port), int(timeout_ms) / 1000)
        if line.startswith("ok "):
            ok += 1
        else:
            fail += 1
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
        if i + 1 < int(count):
            time.sleep(max(0.0, int(interval_ms) / 1000 - (time.monotonic() - t0)))
    sys.stdout.write(f"# ok={ok} fail={fail}\n")


def hold(host, port, count, interval_ms, timeout_ms):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(int(timeout_ms) / 1000)
    try:
        s.connect((host, int(port)))
        greeting = b""
        while b"\n" not in greeting:
            chunk = s.recv(256)
            if not chunk:
                raise ConnectionResetError(0, "closed by the peer")
            greeting += chunk
    except OSError as e:
        sys.stdout.write("fail " + reason(e) + "\n")
        return
    greeting, buf = greeting.split(b"\n", 1)
    sys.stdout.write("connected " + greeting.decode(errors="replace") + "\n")
    sys.stdout.flush()
    ok = fail = 0
    for i in range(int(count)):
        t0 = time.monotonic()
        want = str(i).encode()
        try:
            s.sendall(want + b"\n")
            got = None
            while got is None:
                while b"\n" not in buf:
                    chunk = s.recv(4096)
                    if not chunk:
                        raise ConnectionResetError(0, "closed by the peer")
                    buf += chunk
                line, buf = buf.split(b"\n", 1)
                text = line.decode(errors="replace")
                if text.endswith(" " + want.decode()):
                    got = text
                else:
                    sys.stdout.write("late " + text + "\n")
            ok += 1
            sys.stdout.write("ok " + got + "\n")
        except OSError as e:
            fail += 1
            sys.stdout.write("fail " + reason(e) + "\n")
        sys.stdout.flush()
        if i + 1 < int(count):
            time.sleep(max(0.0, int(interval_ms) / 1000 - (time.monotonic() - t0)))
    s.close()
    sys.stdout.write(f"# ok={ok} fail={fail}\n")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"serve": serve, "probe": probe, "hold": hold}[cmd](*args)
