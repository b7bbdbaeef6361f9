"""Drives headless Chromium through chromedriver's W3C WebDriver API (standard library only) against a
running `gazerec view`: the time to first paint of one session (and its parts: the series asked
for and received, their parsing), and the frames per second the page draws while every session
plays over a stimulus. With --before URL (a second server over the same database, an earlier
binary), the first paint is measured on both, alternating. Prints one line per figure.

usage: bench_view.py [--rounds N] [--before URL] URL STIMULUS_NAME ID...
"""
import argparse, json, statistics, subprocess, time, urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--before")
parser.add_argument("url")
parser.add_argument("stimulus")
parser.add_argument("ids", nargs="+")
options = parser.parse_args()
first, ids = options.ids[0], options.ids
port = 9600 + int(time.time()) % 300
driver = subprocess.Popen(["/usr/bin/chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=data,
                                     headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request, timeout=900))["value"]


for _ in range(100):
    try:
        call("GET", "/status")
        break
    except OSError:
        time.sleep(0.1)
args = ["--headless=new", "--no-sandbox", "--window-size=1400,1100", "--autoplay-policy=no-user-gesture-required"]
session = call("POST", "/session", {"capabilities": {"alwaysMatch": {"browserName": "chrome",
                                                                     "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args}}}})["sessionId"]


def run(script, *arguments):
    return call("POST", f"/session/{session}/execute/sync", {"script": script, "args": list(arguments)})


exchanged = set()


def open_page(url):
    """The address with its one-time token the first time (the server exchanges it for a cookie),
    the address without it after."""
    call("POST", f"/session/{session}/url", {"url": url.split("?token=")[0] if url in exchanged else url})
    exchanged.add(url)
    run("return window.gazerecView.ready;")


def first_paint(url):
    """Seconds from asking for the series to the first frame drawn with them (the page's clock), then
    the same series fetched alone: seconds until received, megabytes, milliseconds to parse."""
    open_page(url)
    paint = run("""
        const start = performance.now();
        return window.gazerecView.openSessions([arguments[0]], '', '', '')
          .then(() => new Promise(r => requestAnimationFrame(() => r(performance.now() - start))));
        """, first)
    parts = run("""
        const start = performance.now();
        return import('/page/series.js').then(series =>
          fetch(`/api/sessions/${arguments[0]}/series`, { cache: 'no-store' }).then(r => r.arrayBuffer()).then(buffer => {
            const received = performance.now();
            series.parseSeries(buffer);
            return [received - start, buffer.byteLength, performance.now() - received];
          }));
        """, first)
    return paint / 1000, parts[0] / 1000, parts[1] / 1e6, parts[2]


def describe(name, rounds):
    paints = [r[0] for r in rounds]
    print(f"first paint of one session{name}: median {statistics.median(paints):.3f} s "
          f"(rounds: {', '.join(f'{p:.3f}' for p in paints)}); series received in "
          f"{statistics.median(r[1] for r in rounds):.3f} s ({rounds[0][2]:.1f} MB), parsed in "
          f"{statistics.median(r[3] for r in rounds):.1f} ms")


try:
    call("POST", f"/session/{session}/timeouts", {"script": 900000})
    after, before = [], []
    for _ in range(options.rounds):
        if options.before:
            before.append(first_paint(options.before))
        after.append(first_paint(options.url))
    if options.before:
        describe(" (before)", before)
    describe("", after)
    open_page(options.url)
    opened = run("""
        const start = performance.now();
        return window.gazerecView.openSessions(arguments[0], arguments[1], '0,0,1600,900', '')
          .then(() => performance.now() - start);
        """, ids, options.stimulus)
    print(f"{len(ids)} sessions over the stimulus opened in {opened / 1000:.3f} s")
    fps = run("""
        const v = window.gazerecView;
        v.setPlaying(true);
        return new Promise(resolve => {
          let frames = 0; const start = performance.now(); const t0 = v.state.t;
          function count() {
            frames++;
            if (performance.now() - start < 10000) requestAnimationFrame(count);
            else { v.setPlaying(false); resolve([frames / ((performance.now() - start) / 1000), v.state.t - t0]); }
          }
          requestAnimationFrame(count);
        });
        """)
    print(f"playing {len(ids)} sessions over the stimulus: {fps[0]:.1f} frames per second ({fps[1]:.1f} s of stimulus in 10 s)")
finally:
    call("DELETE", f"/session/{session}")
    driver.kill()
