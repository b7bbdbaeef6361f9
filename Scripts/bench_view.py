"""Drives headless Chromium through chromedriver's W3C WebDriver API (standard library only) against a
running `gazerec view`: the time to first paint of one session, and the frames per second the page
draws while SESSIONS sessions play over a stimulus. Prints one line per figure.

usage: bench_view.py URL FIRST_ID STIMULUS_NAME ID...
"""
import json, subprocess, sys, time, urllib.request

url, first, stimulus, ids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
port = 9600 + int(time.time()) % 300
driver = subprocess.Popen(["/usr/bin/chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=data,
                                     headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request, timeout=600))["value"]


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


try:
    call("POST", f"/session/{session}/timeouts", {"script": 600000})
    call("POST", f"/session/{session}/url", {"url": url})
    run("return window.gazerecView.ready;")
    # From the request of the series to the first frame drawn with them (the page's clock).
    first_paint = run("""
        const start = performance.now();
        return window.gazerecView.openSessions([arguments[0]], '', '', '')
          .then(() => new Promise(r => requestAnimationFrame(() => r(performance.now() - start))));
        """, first)
    print(f"first paint of one session: {first_paint / 1000:.3f} s")
    opened = run("""
        const start = performance.now();
        return window.gazerecView.openSessions(arguments[0], arguments[1], '0,0,1600,900', '')
          .then(() => performance.now() - start);
        """, ids, stimulus)
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
