// gazerec view: the sessions table, the replay over the screen or a stimulus, the tracks, AOIs and figures.
import { parseSeries, indexAt, sessionEnd, shapeAt, aoiDocument, areasFromDocument } from "/page/series.js";
import { drawTracks, trackLayout, expressionColours } from "/page/tracks.js";
import { stimulusSecondsAt, showingAt, alignSeries, eventText } from "/page/presented.js";

const colours = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#bfef45", "#fabed4", "#469990",
  "#dcbeff", "#9a6324", "#fffac8", "#800000", "#aaffc3", "#808000", "#ffd8b1", "#000075", "#a9a9a9", "#ffe119"];
const $ = id => document.getElementById(id);
const state = {
  sessions: [], open: [], stimulus: null, rect: null, startLabel: "", t: 0, duration: 0, playing: false, speed: 1,
  areas: [], chosen: -1, tool: "none", drawing: null, lastMetrics: null, painted: false, areasByKey: {}, areasKey: null,
  presented: [], images: {}, videoFor: null, focus: null,
};

async function api(path, options) {
  const response = await fetch(path, options);
  if (!response.ok) {
    let message = response.statusText;
    try { message = (await response.json()).error; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}

function say(text) { $("status").textContent = text; }

// The session whose tracks, markers, figures and (over the screen) presented stimulus are shown:
// the one chosen in the legend while it is shown, else the first shown.
function focusSession() {
  const chosen = state.focus;
  return chosen && chosen.visible && state.open.includes(chosen) ? chosen : state.open.find(s => s.visible);
}

// ---- the sessions table ----
function fixed(x, d) { return x === null || x === undefined ? "–" : x.toFixed(d); }

function renderSessions() {
  const filter = $("filter").value.trim().toLowerCase();
  const body = $("sessions").querySelector("tbody");
  body.textContent = "";
  let shown = 0;
  for (const s of state.sessions) {
    const iso = new Date(s.beginTime * 1000).toISOString(), date = iso.replace("T", " ").slice(0, 19);
    // The date as shown here and as `gazerec list` writes it (2026-11-29T03:03).
    const text = `${s.id} ${s.appID} ${date} ${iso}`.toLowerCase();
    if (filter && !text.includes(filter)) continue;
    shown++;
    const row = document.createElement("tr");
    if (s.damage) row.className = "damaged";
    const accuracy = s.accuracyPoints === null ? "–" : `${fixed(s.accuracyPoints, 1)} pt` + (s.accuracyDegrees === null ? "" : ` (${fixed(s.accuracyDegrees, 2)}°)`);
    const cells = [s.appID, date, fixed(s.durationSeconds, 1), String(s.frames),
      s.onScreenShare === null ? "–" : `${(100 * s.onScreenShare).toFixed(1)} %`, accuracy, s.damage || "none", s.id];
    const pick = document.createElement("td");
    const box = document.createElement("input");
    box.type = "checkbox"; box.dataset.id = s.id; box.disabled = !!s.damage;
    pick.append(box); row.append(pick);
    cells.forEach((c, i) => { const td = document.createElement("td"); td.textContent = c; if (i === 0 || i >= 6) td.className = "text"; row.append(td); });
    row.addEventListener("dblclick", () => { if (!s.damage) openSessions([s.id]).catch(e => say(e.message)); });
    body.append(row);
  }
  if (filter && !shown) {
    const cell = body.insertRow().insertCell();
    cell.colSpan = 9; cell.className = "text"; cell.textContent = `No session matches "${$("filter").value.trim()}".`;
  }
  if (state.sessions.length) say(filter ? `${shown} of ${state.sessions.length} sessions` : `${state.sessions.length} sessions`);
}

// ---- opening sessions ----
async function openSessions(ids, stimulusName = $("stimulus").value, rectText = $("rect").value, startLabel = $("start-marker").value) {
  if (stimulusName.startsWith("presented:")) stimulusName = "";
  say("loading…");
  const loaded = await Promise.all(ids.map(async (id, i) => {
    const series = parseSeries(await (await api(`/api/sessions/${encodeURIComponent(id)}/series`)).arrayBuffer());
    const info = state.sessions.find(s => s.id === id) || { id, appID: "" };
    const presentations = await (await api(`/api/sessions/${encodeURIComponent(id)}/presentations`)).json();
    return { id, info, series, presentations, colour: colours[i % colours.length], visible: true, offset: 0 };
  }));
  state.open = loaded;
  state.stimulus = null;
  state.focus = null;
  clearMetrics();
  renderPresentations();
  dropPresentedChoice();
  $("stimulus").value = stimulusName; $("rect").value = rectText; $("start-marker").value = startLabel;
  $("sessions-panel").hidden = true;
  $("replay-panel").hidden = false;
  renderLegend();
  // A refused stimulus or marker: the sessions over the screen, and the refusal said.
  const refused = await applyStimulus(stimulusName, rectText, startLabel).then(() => null, e => e);
  if (refused) { await applyStimulus("", "", ""); throw refused; }
  updateFigureLinks();
  say(`${ids.length} session${ids.length === 1 ? "" : "s"}`);
}

// Shows stimulus `name` (none: the screen) where `rectText` says, from marker `startLabel`: the
// server checks both as `stimulus aoi --rect --start` does and the page refuses what it refuses,
// keeping the view; an empty rectangle is the first session's whole screen.
async function applyStimulus(name, rectText, startLabel) {
  const label = startLabel.trim(), ids = [...new Set(state.open.map(s => s.id))];
  let rect = null;
  if (name) {
    const text = rectText.trim() || [0, 0, ...state.open[0].series.screen].join(",");
    rect = (await (await api("/api/placement", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ids, stimulus: name, rect: text, start: label }) })).json()).rect;
    $("rect").value = text;
  } else if (label) {
    const without = state.open.find(s => !s.series.markers.some(m => m.label === label));
    if (without) throw new Error(markerMissing(without, label));
  }
  clearMetrics();
  state.startLabel = label;
  for (const s of state.open) {
    const marker = state.startLabel ? s.series.markers.find(m => m.label === state.startLabel) : null;
    s.offset = marker ? marker.t : 0;
  }
  const video = $("video");
  video.pause();
  state.stimulus = null;
  if (name) {
    const info = (await (await api("/api/stimuli")).json()).find(s => s.name === name);
    if (!info || !info.width) throw new Error(`cannot read stimulus ${name}`);
    state.rect = rect;
    const url = `/api/stimulus?name=${encodeURIComponent(name)}`;
    state.stimulus = { ...info, url, isVideo: !/\.(png|jpe?g|gif|webp)$/i.test(name) };
    await loadStimulusMedia();
  }
  await showStimulus();
  say(name ? `${name} shown at ${state.rect.join(",")}${label ? ` from marker ${label}` : ""}` : `the screen${label ? ` from marker ${label}` : ""}`);
}

// The sentence of StimulusStudy for a session without the start marker (over the screen there is
// no stimulus for the server to check it with).
function markerMissing(s, label) {
  const known = [...new Set(s.series.markers.map(m => m.label))];
  return `session ${s.id} cannot be analysed: it has no marker "${label}" (its markers: ${known.length ? known.join(", ") : "none"})`;
}

// The metrics table and its notes go when what they were computed for changes.
function clearMetrics() {
  state.lastMetrics = null;
  $("metrics").textContent = "";
}

// The chosen (or presented) stimulus's picture: the video loaded, or the image decoded.
async function loadStimulusMedia() {
  const video = $("video"), stimulus = state.stimulus;
  state.videoFor = null;
  if (!stimulus.url) return;
  if (stimulus.isVideo) {
    video.src = stimulus.url;
    await new Promise((resolve, reject) => { video.onloadeddata = resolve; video.onerror = () => reject(new Error("the browser cannot play " + stimulus.name)); });
  } else {
    stimulus.image = new Image();
    stimulus.image.src = stimulus.url;
    await stimulus.image.decode();
  }
}

// The stage, time axis and tracks for what is open, at time 0.
async function showStimulus() {
  resizeStage();
  state.duration = state.stimulus && state.stimulus.durationSeconds ? state.stimulus.durationSeconds
    : Math.max(...state.open.map(s => sessionEnd(s.series) - s.offset));
  $("scrub").max = String(state.duration);
  fillIntervals();
  drawFocusTracks();
  await seek(0);
}

function resizeStage() {
  const [w, h] = contentSize();
  const canvas = $("stage");
  canvas.width = 960;
  canvas.height = Math.round(960 * h / w);
}

// The drawn content's size: the stimulus's pixels, or the first session's screen in points.
function contentSize() {
  if (state.stimulus) return [state.stimulus.width, state.stimulus.height];
  const screen = state.open.length ? state.open[0].series.screen : [1920, 1080];
  return [screen[0] || 1920, screen[1] || 1080];
}

// A gaze point (screen points) on the canvas: through the stimulus's rectangle when one is shown
// (`rect`: a presented showing's own, else the one chosen).
function toCanvas(x, y, rect = state.rect) {
  const [w] = contentSize();
  const scale = $("stage").width / w;
  if (state.stimulus) {
    const [rx, ry, rw, rh] = rect;
    return [(x - rx) * state.stimulus.width / rw * scale, (y - ry) * state.stimulus.height / rh * scale];
  }
  return [x * scale, y * scale];
}

function contentScale() { return $("stage").width / contentSize()[0]; }

// ---- time ----
async function seek(t, fromVideo = false, playing = false) {
  state.t = Math.max(0, Math.min(t, state.duration));
  const video = $("video");
  if (!state.stimulus) await syncShown(playing);
  else if (state.stimulus.isVideo && !fromVideo) {
    const target = Math.min(state.t, video.duration || state.t);
    if (Math.abs(video.currentTime - target) > 1e-3) {
      const seeked = new Promise(resolve => { video.onseeked = resolve; });
      video.currentTime = target;
      await seeked;
      await frameReady(video);
    }
  }
  $("scrub").value = String(state.t);
  $("time").textContent = `${state.t.toFixed(3)} s`;
  paint();
}

let lastTick = null;
function tick(now) {
  if (state.playing) {
    const video = $("video");
    if (state.stimulus && state.stimulus.isVideo && !video.paused) {
      seek(video.currentTime, true);
    } else if (lastTick !== null) {
      seek(state.t + (now - lastTick) / 1000 * state.speed, false, true);
    }
    if (state.t >= state.duration) setPlaying(false);
  }
  lastTick = now;
  requestAnimationFrame(tick);
}

function setPlaying(on) {
  state.playing = on;
  $("play").textContent = on ? "Pause" : "Play";
  const video = $("video");
  if (!state.stimulus && !on) video.pause();
  if (state.stimulus && state.stimulus.isVideo) {
    video.playbackRate = state.speed;
    if (on && state.t < (video.duration || 0)) video.play(); else video.pause();
  }
}

// One frame: of the stimulus shown (the chosen one, else the presented video at the cursor), else
// of the first shown session (its frames' median interval), else 1/60 s.
function frameStep() {
  const shown = state.shown && state.shown.kind === "video" ? (foundFile(state.shown) || {}).framesPerSecond || state.shown.frameRate : null;
  const rate = state.stimulus ? state.stimulus.framesPerSecond : shown;
  if (rate) return 1 / rate;
  const focus = focusSession(), t = focus ? focus.series.columns["frame.t"] : null;
  if (!t || t.length < 2) return 1 / 60;
  const gaps = [];
  for (let i = 1; i < Math.min(t.length, 241); i++) gaps.push(t[i] - t[i - 1]);
  gaps.sort((a, b) => a - b);
  return gaps[gaps.length >> 1] > 0 ? gaps[gaps.length >> 1] : 1 / 60;
}

function stepMarker(direction) {
  const focus = focusSession();
  if (!focus) return;
  const times = focus.series.markers.map(m => m.t - focus.offset).sort((a, b) => a - b);
  const next = direction > 0 ? times.find(x => x > state.t + 1e-6) : times.reverse().find(x => x < state.t - 1e-6);
  if (next !== undefined) seek(next);
}

// ---- painting ----
function paint() {
  const canvas = $("stage"), g = canvas.getContext("2d");
  g.fillStyle = "#333";
  g.fillRect(0, 0, canvas.width, canvas.height);
  if (state.stimulus && (state.stimulus.isVideo || state.stimulus.image)) {
    const source = state.stimulus.isVideo ? $("video") : state.stimulus.image;
    g.drawImage(source, 0, 0, canvas.width, canvas.height);
  } else if (state.stimulus) {
    g.fillStyle = "#555";
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = "#fff"; g.font = "16px sans-serif";
    g.fillText(state.stimulus.missing, 12, 24);
  } else {
    g.fillStyle = "#555";
    g.fillRect(0, 0, canvas.width, canvas.height);
    paintShown(g);
    paintOtherShowings(g, canvas);
  }
  if ($("heatmap").checked) paintHeatmap(g, canvas);
  paintAreas(g);
  for (const s of state.open) if (s.visible) paintSession(g, s);
  drawTracks($("tracks"), focusSession(), state, false);
  state.painted = true;
}

function paintSession(g, s) {
  const c = s.series.columns, t = state.t + s.offset;
  // Fixations of the last two seconds, numbered in the session's order.
  const fixEnd = indexAt(c["fix.start"], t);
  g.font = "bold 12px sans-serif";
  for (let i = Math.max(0, fixEnd - 20); i <= fixEnd; i++) {
    if (c["fix.end"][i] < t - 2) continue;
    const [x, y] = toCanvas(c["fix.x"][i], c["fix.y"][i], s.rect);
    const r = 6 + 20 * Math.min(1, (Math.min(c["fix.end"][i], t) - c["fix.start"][i]));
    g.strokeStyle = s.colour; g.lineWidth = 2; g.globalAlpha = 0.8;
    g.beginPath(); g.arc(x, y, r, 0, 2 * Math.PI); g.stroke();
    g.fillStyle = "#fff"; g.fillText(String(i + 1), x + r + 2, y - r);
  }
  // The trail of the last second, fading. Over a presented stimulus, the participant's own last
  // second before the sample shown, in the order it was looked at, within the showing.
  const last = indexAt(c["gaze.t"], t);
  if (last < 0 || t - c["gaze.t"][last] > 0.25) { g.globalAlpha = 1; return; }
  const raw = s.raw ? s.raw.columns : c, now = s.raw ? c["gaze.session"][last] : t;
  const from = s.raw ? Math.max(now - 1, s.presentation.onset) : now - 1;
  g.strokeStyle = s.colour; g.lineWidth = 2;
  let previous = null;
  for (let i = s.raw ? indexAt(raw["gaze.t"], now) : last; i >= 0 && raw["gaze.t"][i] >= from; i--) {
    const point = toCanvas(raw["gaze.x"][i], raw["gaze.y"][i], s.rect);
    if (previous) {
      g.globalAlpha = 0.7 * (1 - (now - raw["gaze.t"][i]));
      g.beginPath(); g.moveTo(...previous); g.lineTo(...point); g.stroke();
    }
    previous = point;
  }
  g.globalAlpha = 1;
  const [x, y] = toCanvas(c["gaze.x"][last], c["gaze.y"][last], s.rect);
  g.fillStyle = s.colour; g.strokeStyle = "#fff"; g.lineWidth = 2;
  const w = g.canvas.width, h = g.canvas.height;
  if (x < 0 || y < 0 || x >= w || y >= h) {
    // Off the picture: a square in the participant's colour at the nearest edge.
    const cx = Math.min(Math.max(x, 7), w - 7), cy = Math.min(Math.max(y, 7), h - 7);
    g.fillRect(cx - 6, cy - 6, 12, 12); g.strokeRect(cx - 6, cy - 6, 12, 12);
    return;
  }
  g.beginPath(); g.arc(x, y, 8, 0, 2 * Math.PI); g.fill(); g.stroke();
}

// The gaze of the last second of every visible session, a Gaussian splat per sample on a coarse grid.
function paintHeatmap(g, canvas) {
  const cell = 8, cols = Math.ceil(canvas.width / cell), rows = Math.ceil(canvas.height / cell);
  const grid = new Float32Array(cols * rows);
  const sigma = 3, reach = 3 * sigma;
  let total = 0;
  for (const s of state.open) {
    if (!s.visible) continue;
    const c = s.series.columns, t = state.t + s.offset;
    for (let i = indexAt(c["gaze.t"], t); i >= 0 && c["gaze.t"][i] >= t - 1; i--) {
      const [x, y] = toCanvas(c["gaze.x"][i], c["gaze.y"][i], s.rect);
      const cx = x / cell, cy = y / cell;
      for (let gy = Math.max(0, Math.floor(cy - reach)); gy < Math.min(rows, cy + reach); gy++) {
        for (let gx = Math.max(0, Math.floor(cx - reach)); gx < Math.min(cols, cx + reach); gx++) {
          const d2 = (gx - cx) ** 2 + (gy - cy) ** 2;
          grid[gy * cols + gx] += Math.exp(-d2 / (2 * sigma * sigma));
        }
      }
      total++;
    }
  }
  if (!total) return;
  let peak = 0;
  for (const v of grid) peak = Math.max(peak, v);
  const image = new ImageData(cols, rows);
  for (let i = 0; i < grid.length; i++) {
    const v = grid[i] / peak;
    if (v < 0.05) continue;
    image.data[i * 4] = 255; image.data[i * 4 + 1] = Math.round(255 * (1 - v)); image.data[i * 4 + 2] = 0;
    image.data[i * 4 + 3] = Math.round(180 * v);
  }
  const small = document.createElement("canvas");
  small.width = cols; small.height = rows;
  small.getContext("2d").putImageData(image, 0, 0);
  g.imageSmoothingEnabled = true;
  g.drawImage(small, 0, 0, cols * cell, rows * cell);
}

// What AOIs are drawn on and belong to: the chosen (or group's presented) stimulus, else the
// presented file on the screen at the cursor (its pixels through its recorded rectangle); null over
// the bare screen. `key` names the stimulus (its areas are kept by it), `time` is its own seconds,
// `sx`, `sy` canvas pixels per stimulus pixel and `x0`, `y0` where its pixel (0, 0) is on the canvas.
function areaTarget() {
  const scale = contentScale();
  if (state.stimulus) {
    return { key: state.stimulus.presented || `name:${state.stimulus.name}`, presented: state.stimulus.presented, time: state.t, sx: scale, sy: scale, x0: 0, y0: 0 };
  }
  const p = state.shown, found = foundFile(p);
  if (!p || !p.rect || !found || !found.width) return null;
  const time = p.kind === "video" ? stimulusSecondsAt(p.clock, state.t) : 0;
  if (time === null) return null;
  return { key: found.id, presented: found.id, time, sx: p.rect[2] / found.width * scale, sy: p.rect[3] / found.height * scale,
    x0: p.rect[0] * scale, y0: p.rect[1] * scale };
}

// The areas of the stimulus now shown: another stimulus's are put away (and come back with it).
function syncAreas() {
  const target = areaTarget(), key = target ? target.key : null;
  if (key === state.areasKey) return target;
  if (state.areasKey !== null) state.areasByKey[state.areasKey] = state.areas;
  state.areas = (key !== null && state.areasByKey[key]) || [];
  state.areasKey = key; state.chosen = -1; state.drawing = null;
  renderAreas();
  return target;
}

function paintAreas(g) {
  const target = syncAreas();
  if (!target) return;
  state.areas.forEach((area, index) => {
    const shape = shapeAt(area, target.time);
    if (!shape) return;
    // A dark edge under the outline, so that it shows over a stimulus of its own colour.
    tracePath(g, shape, target);
    g.strokeStyle = "rgba(0, 0, 0, 0.85)"; g.lineWidth = 4; g.stroke();
    g.strokeStyle = index === state.chosen ? "#ffff00" : "#00ffff";
    g.lineWidth = 2;
    g.stroke();
    g.fillStyle = g.strokeStyle; g.font = "12px sans-serif";
    const [x, y] = shape.kind === "polygon" ? shape.points[0] : shape.kind === "rect" ? shape.v : [shape.v[0] - shape.v[2], shape.v[1] - shape.v[3]];
    g.fillText(area.name, target.x0 + x * target.sx + 2, target.y0 + y * target.sy - 4);
  });
  if (state.drawing && state.drawing.points.length) {
    g.strokeStyle = "#ffff00"; g.lineWidth = 1;
    const shape = drawnShape(state.drawing);
    if (shape) { tracePath(g, shape, target); g.stroke(); }
  }
}

// A shape in stimulus pixels traced on the canvas through `t` (areaTarget).
function tracePath(g, shape, t) {
  const x = v => t.x0 + v * t.sx, y = v => t.y0 + v * t.sy;
  g.beginPath();
  if (shape.kind === "rect") g.rect(x(shape.v[0]), y(shape.v[1]), shape.v[2] * t.sx, shape.v[3] * t.sy);
  else if (shape.kind === "ellipse") g.ellipse(x(shape.v[0]), y(shape.v[1]), shape.v[2] * t.sx, shape.v[3] * t.sy, 0, 0, 2 * Math.PI);
  else { shape.points.forEach((p, i) => i ? g.lineTo(x(p[0]), y(p[1])) : g.moveTo(x(p[0]), y(p[1]))); g.closePath(); }
}

// ---- the AOI editor ----
function drawnShape(d) {
  const p = d.points;
  if (d.tool === "polygon") return p.length >= 2 ? { kind: "polygon", points: p } : null;
  if (p.length < 2) return null;
  const [a, b] = [p[0], p[p.length - 1]];
  const x = Math.min(a[0], b[0]), y = Math.min(a[1], b[1]), w = Math.abs(a[0] - b[0]), h = Math.abs(a[1] - b[1]);
  if (w < 1 || h < 1) return null;
  return d.tool === "rect" ? { kind: "rect", v: [x, y, w, h] } : { kind: "ellipse", v: [x + w / 2, y + h / 2, w / 2, h / 2] };
}

// The mouse's point in stimulus pixels.
function stagePoint(event) {
  const box = $("stage").getBoundingClientRect(), t = areaTarget();
  return [(event.clientX - box.left - t.x0) / t.sx, (event.clientY - box.top - t.y0) / t.sy];
}

// A drawn shape: a keyframe of the chosen keyframed area when *keyframed* is ticked and the name and
// kind are the area's; otherwise a new area under the Name field's name.
function finishShape(shape) {
  state.drawing = null;
  const target = areaTarget();
  if (!shape || !target) return paint();
  const area = state.areas[state.chosen], name = $("aoi-name").value.trim(), keyframed = $("aoi-keyframed").checked;
  if (area && area.keyframed && keyframed && area.keyframes[0].shape.kind === shape.kind && (!name || name === area.name)) {
    const existing = area.keyframes.findIndex(k => Math.abs(k.t - target.time) < 1e-6);
    if (existing >= 0) area.keyframes[existing].shape = shape; else area.keyframes.push({ t: target.time, shape });
    area.keyframes.sort((a, b) => a.t - b.t);
  } else {
    let fresh = name || `aoi ${state.areas.length + 1}`;
    while (state.areas.some(a => a.name === fresh)) fresh += "'";
    state.areas.push({ name: fresh, keyframed, keyframes: [{ t: target.time, shape }] });
    state.chosen = state.areas.length - 1;
    // A keyframed area stays chosen under its name for its next keyframes; a still one is done.
    $("aoi-name").value = keyframed ? fresh : nextAreaName();
  }
  renderAreas();
  paint();
}

function nextAreaName() {
  let n = state.areas.length + 1;
  while (state.areas.some(a => a.name === `aoi ${n}`)) n++;
  return `aoi ${n}`;
}

// The chosen area's keyframe at the cursor (within half a frame) removed; its last one stays.
function deleteKeyframe() {
  const area = state.areas[state.chosen], target = areaTarget();
  if (!area || !area.keyframed || !target) throw new Error("choose a keyframed area in the list first");
  const at = area.keyframes.findIndex(k => Math.abs(k.t - target.time) <= frameStep() / 2 + 1e-9);
  if (at < 0) throw new Error(`${area.name} has no keyframe at ${target.time.toFixed(3)} s: move the cursor onto one`);
  if (area.keyframes.length === 1) throw new Error(`that is the only keyframe of ${area.name}: delete the area instead`);
  area.keyframes.splice(at, 1);
  renderAreas(); paint();
}

function renderAreas() {
  const list = $("aoi-list");
  list.textContent = "";
  state.areas.forEach((a, i) => {
    const item = document.createElement("li");
    const count = a.keyframes.length;
    item.textContent = `${a.name} (${a.keyframes[0].shape.kind}${a.keyframed ? `, ${count} keyframe${count === 1 ? "" : "s"}` : ""})`;
    if (i === state.chosen) item.className = "chosen";
    item.addEventListener("click", () => { state.chosen = i; $("aoi-name").value = a.name; renderAreas(); paint(); });
    list.append(item);
  });
}

function setupEditor() {
  const stage = $("stage");
  for (const button of document.querySelectorAll(".tools button")) {
    button.addEventListener("click", () => {
      state.tool = button.dataset.tool; state.drawing = null;
      document.querySelectorAll(".tools button").forEach(b => b.classList.toggle("active", b === button));
    });
  }
  stage.addEventListener("mousedown", event => {
    if (state.tool === "none" || !areaTarget()) return;
    if (state.tool === "polygon") {
      if (!state.drawing) state.drawing = { tool: "polygon", points: [] };
      state.drawing.points.push(stagePoint(event));
    } else {
      state.drawing = { tool: state.tool, points: [stagePoint(event)] };
    }
    paint();
  });
  stage.addEventListener("mousemove", event => {
    if (!state.drawing || state.drawing.tool === "polygon" || !(event.buttons & 1)) return;
    state.drawing.points[1] = stagePoint(event);
    paint();
  });
  stage.addEventListener("mouseup", event => {
    if (!state.drawing || state.drawing.tool === "polygon") return;
    state.drawing.points[1] = stagePoint(event);
    finishShape(drawnShape(state.drawing));
  });
  stage.addEventListener("dblclick", () => {
    if (!state.drawing || state.drawing.tool !== "polygon") return;
    // The double click's second press added the last vertex twice.
    const p = state.drawing.points;
    while (p.length > 1 && Math.hypot(p[p.length - 1][0] - p[p.length - 2][0], p[p.length - 1][1] - p[p.length - 2][1]) < 2) p.pop();
    finishShape(p.length >= 3 ? { kind: "polygon", points: p.slice() } : null);
  });
  $("aoi-delete").addEventListener("click", () => { if (state.chosen >= 0) { state.areas.splice(state.chosen, 1); state.chosen = -1; renderAreas(); paint(); } });
  $("aoi-finish").addEventListener("click", () => { state.chosen = -1; state.drawing = null; $("aoi-name").value = nextAreaName(); renderAreas(); paint(); });
  $("aoi-delete-keyframe").addEventListener("click", () => { try { deleteKeyframe(); } catch (e) { say(e.message); } });
  $("aoi-save").addEventListener("click", () => saveAreas($("aoi-file").value).catch(e => say(e.message)));
  $("aoi-load").addEventListener("click", () => loadAreas($("aoi-files").value).catch(e => say(e.message)));
  $("aoi-metrics").addEventListener("click", () => metrics().catch(e => { clearMetrics(); say(e.message); }));
}

async function saveAreas(name) {
  await api(`/api/aoi-files/${encodeURIComponent(name)}`, { method: "PUT", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(aoiDocument(state.areas)) });
  say(`saved ${name}`);
  await listAreaFiles();
}

async function loadAreas(name) {
  if (!syncAreas()) throw new Error("choose a stimulus first: areas of interest belong to one");
  const doc = await (await api(`/api/aoi-files/${encodeURIComponent(name)}`)).json();
  state.areas = areasFromDocument(doc);
  state.chosen = -1;
  renderAreas(); paint();
  say(`loaded ${name}`);
}

async function listAreaFiles() {
  try {
    const names = await (await api("/api/aoi-files")).json();
    $("aoi-files").textContent = "";
    for (const n of names) { const o = document.createElement("option"); o.textContent = n; $("aoi-files").append(o); }
  } catch (e) { /* no AOI folder */ }
}

// The AOI table of the shown sessions over the stimulus the areas belong to (a presented one: over
// the sessions' own showings of it, as `stimulus aoi` without --rect), with the command's warnings.
async function metrics() {
  const target = syncAreas();
  if (!target) throw new Error("choose a stimulus first (or move the cursor onto a presented one)");
  clearMetrics();
  const ids = [...new Set(state.open.filter(s => s.visible).map(s => s.id))];
  const body = target.presented ? { ids, presented: target.presented, aois: aoiDocument(state.areas) }
    : { ids, stimulus: state.stimulus.name, rect: state.rect, start: state.startLabel, aois: aoiDocument(state.areas) };
  const answer = await (await api("/api/aoi/metrics", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })).json();
  state.lastMetrics = answer;
  const rows = answer.table;
  const table = document.createElement("table");
  table.id = "metrics-table";
  if (rows.length) {
    const head = table.insertRow();
    for (const k of Object.keys(rows[0])) { const th = document.createElement("th"); th.textContent = k; head.append(th); }
    for (const r of rows) { const tr = table.insertRow(); for (const v of Object.values(r)) tr.insertCell().textContent = v === null ? "–" : String(v); }
  }
  $("metrics").textContent = "";
  $("metrics").append(table);
  for (const s of answer.skipped) { const p = document.createElement("p"); p.textContent = s; $("metrics").append(p); }
  for (const w of answer.warnings || []) { const p = document.createElement("p"); p.textContent = `warning: ${w}`; $("metrics").append(p); }
  say(`metrics of ${ids.length} session${ids.length === 1 ? "" : "s"}`);
}

// ---- presentations (`gazerec start --present`) ----
// The screen view of a session that stored presentations: at the cursor, the one on the screen is
// drawn at its recorded rectangle, a video at the position the library's clock gives (pauses,
// stalls and seeks followed), found in the --stimuli folders by its content hash.
function focusShowing() {
  const focus = focusSession();
  return focus && focus.presentations ? showingAt(focus.presentations, state.t) : null;
}

function foundFile(p) { return p && p.stimulus && p.stimulus.id ? p.stimulus : null; }

// Loads presented file `found` into the video element (once per file; concurrent callers share it).
function loadPresentedVideo(found) {
  if (state.videoFor === found.id && state.videoLoading) return state.videoLoading;
  const video = $("video");
  state.videoFor = found.id;
  video.src = `/api/stimulus?presented=${found.id}`;
  state.videoLoading = new Promise((resolve, reject) => {
    video.onloadeddata = resolve;
    video.onerror = () => reject(new Error(`the browser cannot play ${found.name}`));
  });
  return state.videoLoading;
}

async function loadPresentedImage(found) {
  if (!state.images[found.id]) {
    const image = new Image();
    image.src = `/api/stimulus?presented=${found.id}`;
    state.images[found.id] = image;
    await image.decode();
  }
}

// The held (rate 0) or playing state of the clock at t.
function heldAt(clock, t) {
  let held = false;
  for (const s of clock.segments) if (s.start <= t) held = s.rate === 0;
  return held;
}

// Puts the shown presentation's picture at the cursor: precisely (awaiting the seek) when
// scrubbing; while playing, the video plays and is set again when it drifts over 0.2 s.
async function syncShown(playing) {
  const p = focusShowing(), found = foundFile(p), video = $("video");
  state.shown = p;
  if (!found || p.kind !== "video") {
    if (!video.paused) video.pause();
    if (found) await loadPresentedImage(found);
    return;
  }
  await loadPresentedVideo(found);
  const target = stimulusSecondsAt(p.clock, state.t);
  if (playing && !heldAt(p.clock, state.t)) {
    video.playbackRate = state.speed;
    if (Math.abs(video.currentTime - target) > 0.2) video.currentTime = target;
    if (video.paused) video.play().catch(() => {});
    return;
  }
  if (!video.paused) video.pause();
  if (Math.abs(video.currentTime - target) > 1e-6) {
    const seeked = new Promise(resolve => { video.onseeked = resolve; });
    video.currentTime = target;
    if (!playing) {
      await seeked;
      await frameReady(video);
    }
  }
}

// Resolves once the video has handed the frame at its new position to be drawn: Chromium can
// fire `seeked` before a hidden video's canvas copy shows the new frame, so a paint right then may
// draw the frame before the seek. Waits for the video's frame callback, at most 200 ms.
function frameReady(video) {
  if (!video.requestVideoFrameCallback) return Promise.resolve();
  return new Promise(resolve => {
    const timer = setTimeout(resolve, 200);
    video.requestVideoFrameCallback(() => { clearTimeout(timer); resolve(); });
  });
}

function paintShown(g) {
  const p = state.shown;
  if (!p) return;
  g.fillStyle = "#fff"; g.font = "14px sans-serif";
  if (!p.rect) { g.fillText(`${p.kind} ${p.label}`, 12, 22); return; }
  const [x0, y0] = toCanvas(p.rect[0], p.rect[1]), [x1, y1] = toCanvas(p.rect[0] + p.rect[2], p.rect[1] + p.rect[3]);
  const found = foundFile(p), image = found && state.images[found.id];
  if (found && p.kind === "video" && state.videoFor === found.id) g.drawImage($("video"), x0, y0, x1 - x0, y1 - y0);
  else if (image && image.complete) g.drawImage(image, x0, y0, x1 - x0, y1 - y0);
  else {
    g.fillStyle = "#222"; g.fillRect(x0, y0, x1 - x0, y1 - y0);
    g.fillStyle = "#fff";
    g.fillText(p.stimulus && p.stimulus.missing ? `${p.fileName}: not in the --stimuli folders` : p.label, x0 + 8, y0 + 20);
  }
  g.strokeStyle = "#ccc"; g.lineWidth = 1; g.strokeRect(x0, y0, x1 - x0, y1 - y0);
}

// A presentation in words: its label, and a video's position at the cursor by its own clock.
function showingText(p) {
  const at = p.kind === "video" ? stimulusSecondsAt(p.clock, state.t) : null;
  return p.label + (at === null ? "" : ` at ${at.toFixed(2)} s`);
}

// Over the screen with several sessions: the focused one's presentation is the picture (paintShown);
// every other shown session's presentation at the cursor is outlined at its own recorded rectangle in
// that session's colour, named with its own position; a caption says whose picture it is.
function paintOtherShowings(g, canvas) {
  const focus = focusSession();
  if (state.open.length < 2 || !focus || !state.open.some(s => s.presentations && s.presentations.length)) return;
  g.font = "13px sans-serif";
  for (const s of state.open) {
    const p = s.visible && s !== focus && s.presentations ? showingAt(s.presentations, state.t) : null;
    if (!p || !p.rect) continue;
    const [x0, y0] = toCanvas(p.rect[0], p.rect[1]), [x1, y1] = toCanvas(p.rect[0] + p.rect[2], p.rect[1] + p.rect[3]);
    g.strokeStyle = s.colour; g.lineWidth = 2;
    g.strokeRect(x0 + 1, y0 + 1, x1 - x0 - 2, y1 - y0 - 2);
    g.fillStyle = s.colour;
    g.fillText(`${sessionName(s)}: ${showingText(p)}`, x0 + 6, y1 - 8);
  }
  const shown = state.shown ? showingText(state.shown) : "nothing presented now";
  g.fillStyle = "#fff"; g.textAlign = "right";
  g.fillText(`picture: ${sessionName(focus)}, ${shown}`, canvas.width - 10, 18);
  g.textAlign = "left";
}

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

// The focused session's presentations: what, where, when, what happened, and its file's place.
function renderPresentations() {
  const focus = state.open.length === 1 ? state.open[0] : null, list = focus ? focus.presentations || [] : [];
  $("presentations-box").hidden = list.length === 0;
  const body = $("presentations").querySelector("tbody");
  body.textContent = "";
  const seconds = x => x === null ? "–" : x.toFixed(3);
  for (const p of list) {
    const row = body.insertRow();
    const at = cell(row, "", "text"), go = document.createElement("button");
    go.type = "button"; go.dataset.onset = String(p.onset); go.textContent = String(p.index + 1);
    at.append(go);
    [p.label, p.kind, p.fileName || "–", p.sha256 ? p.sha256.slice(0, 12) + "…" : "–"].forEach(t => cell(row, t, "text"));
    cell(row, seconds(p.onset)); cell(row, seconds(p.offset));
    cell(row, p.rect ? p.rect.map(v => Math.round(v * 10) / 10).join(", ") : "–", "text");
    cell(row, p.events.map(e => `${e.t.toFixed(2)} s ${eventText(e)}`).join("; ") || "none", "text");
    const where = cell(row, p.kind === "blank" ? "–" : foundFile(p) ? foundFile(p).name : "not in the --stimuli folders", "text");
    if (p.stimulus && p.stimulus.missing) { where.className = "text missing"; where.title = p.stimulus.missing; }
    if (p.sha256) {
      const compare = document.createElement("button");
      compare.type = "button"; compare.dataset.sha256 = p.sha256; compare.textContent = "All sessions that presented it";
      cell(row, "", "text").append(compare);
    } else cell(row, "");
  }
}

// The sessions panel's list of presented files, each with the sessions that presented it.
function renderPresentedList() {
  $("presented-box").hidden = state.presented.length === 0;
  const list = $("presented-list");
  list.textContent = "";
  for (const f of state.presented) {
    const item = document.createElement("li"), button = document.createElement("button");
    const found = f.stimulus && f.stimulus.id ? `found as ${f.stimulus.name}` : "not in the --stimuli folders";
    item.append(`${f.fileNames.join(", ") || f.kind} (SHA-256 ${f.sha256.slice(0, 12)}…), presented in ${f.sessions.length} session${f.sessions.length === 1 ? "" : "s"}, ${found} `);
    button.type = "button"; button.dataset.sha256 = f.sha256; button.textContent = "Replay them over it";
    item.append(button);
    list.append(item);
  }
}

// Every session that presented the file with this SHA-256, each showing aligned on its own
// playback seconds and drawn through its own rectangle; the time axis is the stimulus's seconds.
async function openPresented(sha256) {
  say("loading…");
  const file = state.presented.find(f => f.sha256 === sha256);
  if (!file) throw new Error("no stored session presented that file");
  const ids = file.sessions.filter(id => !(state.sessions.find(s => s.id === id) || {}).damage);
  const loaded = await Promise.all(ids.map(async id => {
    const series = parseSeries(await (await api(`/api/sessions/${encodeURIComponent(id)}/series`)).arrayBuffer());
    const presentations = await (await api(`/api/sessions/${encodeURIComponent(id)}/presentations`)).json();
    return { id, series, showings: presentations.filter(p => p.sha256 === sha256) };
  }));
  state.open = loaded.flatMap(({ id, series, showings }) => showings.map((p, n) => ({
    id, info: state.sessions.find(s => s.id === id) || { id, appID: "" }, series: alignSeries(series, p), raw: series, presentation: p,
    rect: p.rect || [0, 0, ...series.screen], showing: showings.length > 1 ? n + 1 : null, visible: true, offset: 0,
  })));
  state.open.forEach((s, i) => { s.colour = colours[i % colours.length]; });
  state.focus = null;
  if (!state.open.length) throw new Error("none of the sessions that presented it can be opened");
  clearMetrics();
  setPlaying(false);
  $("video").pause();
  $("sessions-panel").hidden = true; $("replay-panel").hidden = false;
  renderPresentations();
  const found = foundFile(file), first = state.open[0].presentation, names = file.fileNames.join(", ") || sha256.slice(0, 12);
  const measured = found && found.width ? found
    : { width: first.widthPixels || 1920, height: first.heightPixels || 1080, durationSeconds: first.durationSeconds, framesPerSecond: first.frameRate };
  state.stimulus = { ...measured, name: names, presented: sha256, url: found ? `/api/stimulus?presented=${sha256}` : null,
    isVideo: !!found && file.kind === "video", missing: found ? null : `${names}: not in the --stimuli folders (no file there has its SHA-256)` };
  state.startLabel = "";
  showPresentedChoice(`${names} (presented` + (found ? "" : ", not in the --stimuli folders") + ")", sha256);
  await loadStimulusMedia();
  await showStimulus();
  renderLegend();
  updateFigureLinks();
  say(`${state.open.length} showing${state.open.length === 1 ? "" : "s"} of ${names} in ${ids.length} session${ids.length === 1 ? "" : "s"}`);
}

// The stimulus box over a presented file: an entry naming it, chosen; the rectangle and start boxes
// are disabled while it is chosen (each showing has its own). Opening sessions otherwise takes it away.
function showPresentedChoice(text, sha256) {
  const select = $("stimulus");
  let option = select.querySelector("option[data-presented]");
  if (!option) { option = new Option(); option.dataset.presented = "yes"; select.append(option); }
  option.textContent = text; option.value = `presented:${sha256}`;
  select.value = option.value;
  $("rect").value = ""; $("start-marker").value = "";
  $("rect").disabled = $("start-marker").disabled = true;
}

function dropPresentedChoice() {
  const option = $("stimulus").querySelector("option[data-presented]");
  if (option) option.remove();
  $("rect").disabled = $("start-marker").disabled = false;
}

// Apply: the presented file again, or a stimulus chosen by hand (over the sessions as recorded,
// not as aligned on a presented file).
function applyChoice() {
  const value = $("stimulus").value, rect = $("rect").value, start = $("start-marker").value;
  if (value.startsWith("presented:")) return openPresented(value.slice("presented:".length));
  if (state.stimulus && state.stimulus.presented) return openSessions([...new Set(state.open.map(s => s.id))], value, rect, start);
  return applyStimulus(value, rect, start);
}

// ---- legend, figures ----
function renderLegend() {
  const legend = $("legend");
  legend.textContent = "";
  for (const s of state.open) {
    const item = document.createElement("li");
    const box = document.createElement("input");
    box.type = "checkbox"; box.checked = s.visible;
    box.addEventListener("change", () => { s.visible = box.checked; refocus(); });
    const swatch = document.createElement("span");
    swatch.className = "swatch"; swatch.style.background = s.colour;
    item.append(box, swatch, sessionName(s));
    if (state.open.length > 1) {
      item.title = "click to show this one's tracks" + (state.stimulus ? "" : " and the stimulus it was shown");
      if (s === focusSession()) item.className = "focus";
      item.addEventListener("click", event => { if (event.target !== box) { state.focus = s; refocus(); } });
    }
    legend.append(item);
  }
}

// The tracks of the session in focus, named above them.
function drawFocusTracks() {
  const focus = focusSession();
  drawTracks($("tracks"), focus, state, true);
  $("tracks-of").textContent = !focus ? "No participant shown." : state.open.length > 1
    ? `Tracks of ${sessionName(focus)} (in focus: click another name in the legend for theirs)` : `Tracks of ${sessionName(focus)}`;
}

// After the shown sessions or the focus changed: the legend, tracks, figures and picture again (over
// the screen, the focused session's presentation, playing on if it was).
function refocus() {
  renderLegend();
  drawFocusTracks();
  fillIntervals();
  updateFigureLinks();
  if (state.stimulus) paint(); else seek(state.t, false, state.playing).catch(e => say(e.message));
}

function sessionName(s) { return `${s.info.appID || ""} ${s.id.slice(0, 8)}` + (s.showing ? ` showing ${s.showing}` : ""); }

// The figure's intervals: the focused session's markers (the one chosen kept while it is there).
function fillIntervals() {
  const select = $("figure-interval"), kept = select.value;
  select.textContent = "";
  select.append(new Option("the whole session", ""));
  const focus = focusSession();
  if (!focus) return;
  const labels = [...new Set(focus.series.markers.map(m => m.label))];
  for (const l of labels) select.append(new Option(`from marker ${l}`, l));
  if (labels.includes(kept)) select.value = kept;
}

function updateFigureLinks() {
  const focus = focusSession() || state.open[0];
  if (!focus) return;
  const query = `layers=${encodeURIComponent($("figure-layers").value)}&between=${encodeURIComponent($("figure-interval").value)}`;
  $("figure-svg").href = `/api/sessions/${focus.id}/figure?format=svg&${query}`;
  $("figure-png").href = `/api/sessions/${focus.id}/figure?format=png&${query}`;
}

// ---- start ----
// Whether keys typed into `target` are text (a text field's own, not the page's shortcuts).
function typing(target) {
  return target.tagName === "TEXTAREA" || target.isContentEditable
    || (target.tagName === "INPUT" && !["range", "checkbox", "radio", "button", "submit", "reset", "color"].includes(target.type));
}

async function start() {
  $("filter").addEventListener("input", renderSessions);
  $("open-selected").addEventListener("click", () => {
    const ids = [...document.querySelectorAll("#sessions input:checked")].map(b => b.dataset.id);
    if (ids.length) openSessions(ids).catch(e => say(e.message));
  });
  $("back").addEventListener("click", () => { setPlaying(false); $("replay-panel").hidden = true; $("sessions-panel").hidden = false; });
  $("presentations").addEventListener("click", event => {
    const button = event.target.closest("button");
    if (button && button.dataset.sha256) openPresented(button.dataset.sha256).catch(e => say(e.message));
    else if (button && button.dataset.onset) seek(Number(button.dataset.onset));
  });
  $("presented-list").addEventListener("click", event => {
    const button = event.target.closest("button");
    if (button) openPresented(button.dataset.sha256).catch(e => say(e.message));
  });
  $("apply-stimulus").addEventListener("click", () => applyChoice().catch(e => say(e.message)));
  $("stimulus").addEventListener("change", () => { $("rect").disabled = $("start-marker").disabled = $("stimulus").value.startsWith("presented:"); });
  $("play").addEventListener("click", () => setPlaying(!state.playing));
  $("speed").addEventListener("change", () => { state.speed = Number($("speed").value); setPlaying(state.playing); });
  $("scrub").addEventListener("input", () => seek(Number($("scrub").value)));
  $("heatmap").addEventListener("change", paint);
  $("figure-interval").addEventListener("change", updateFigureLinks);
  $("figure-layers").addEventListener("change", updateFigureLinks);
  $("tracks").addEventListener("click", event => {
    const box = $("tracks").getBoundingClientRect();
    const x = (event.clientX - box.left) * $("tracks").width / box.width;
    if (x > 90) seek((x - 90) / ($("tracks").width - 90) * state.duration);
  });
  document.addEventListener("keydown", event => {
    if ($("replay-panel").hidden || typing(event.target)) return;
    // The page's keys whatever control has focus (a slider, a menu, a button would take them otherwise).
    if ([" ", "ArrowRight", "ArrowLeft", "[", "]"].includes(event.key)) {
      event.preventDefault();
      if (event.target !== document.body && event.target.blur) event.target.blur();
    }
    if (event.key === " ") setPlaying(!state.playing);
    else if (event.key === "ArrowRight") seek(state.t + frameStep());
    else if (event.key === "ArrowLeft") seek(state.t - frameStep());
    else if (event.key === "]") stepMarker(1);
    else if (event.key === "[") stepMarker(-1);
    else if (event.key === "Enter" && state.drawing && state.drawing.tool === "polygon") finishShape(drawnShape(state.drawing));
  });
  setupEditor();
  for (const [name, colour] of Object.entries(expressionColours)) {
    const key = document.createElement("span"), swatch = document.createElement("span");
    swatch.className = "swatch"; swatch.style.background = colour;
    key.append(swatch, name + " ");
    $("expression-key").append(key);
  }
  state.sessions = await (await api("/api/sessions")).json();
  renderSessions();
  for (const s of await (await api("/api/stimuli")).json()) $("stimulus").append(new Option(s.name, s.name));
  state.presented = await (await api("/api/presented")).json();
  renderPresentedList();
  await listAreaFiles();
  say(`${state.sessions.length} sessions`);
  requestAnimationFrame(tick);
}

// What the tests and the benchmark read and drive.
window.gazerecView = { state, openSessions, openPresented, stimulusSecondsAt, seek, toCanvas, setPlaying, metrics, saveAreas, loadAreas,
  trackLayout: () => trackLayout(state).map(r => ({ name: r.name, top: r.top, height: r.height, id: r.session ? r.session.id : null })),
  ready: start().catch(e => say(e.message)) };
