// The tracks under the stage on one time axis (the timeline's seconds): markers and presentations
// (with their pause, resume, seek and stall events), blinks, each eye's openness, head pose,
// expressions and smile, attention; a cursor at the current time. With several sessions open over
// the screen, each shown session that stored presentations has a row of its own, in its colour,
// for its own presentations; the other rows are the focused session's.
import { indexAt } from "/page/series.js";

const left = 90;
export const expressionColours = { neutral: "#bbb", happy: "#f4c20d", surprise: "#42d4f4", sad: "#4363d8", angry: "#e6194b", disgust: "#3cb44b", fear: "#911eb4" };
const baseRows = [
  { name: "markers", height: 22 }, { name: "blinks", height: 14 }, { name: "openness L/R", height: 40 },
  { name: "head yaw/pitch/roll", height: 56 }, { name: "expression", height: 16 }, { name: "smile", height: 30 },
  { name: "face / on screen", height: 20 },
];
const minimumHeight = 300;
let cache = null, cachedFor = null;

// The shown sessions whose presentations get rows of their own: over the screen, with several open.
function ownRowSessions(state) {
  if (state.stimulus || state.open.length < 2) return [];
  return state.open.filter(s => s.visible && s.presentations && s.presentations.length);
}

// The rows top to bottom, each with its `top` (canvas pixels); a session's row holds `session`.
export function trackLayout(state) {
  const own = ownRowSessions(state).map(s => ({ name: `${s.info.appID || ""} ${s.id.slice(0, 8)}`.trim(), height: 14, session: s }));
  const rows = [baseRows[0], ...own, ...baseRows.slice(1)].map(r => ({ ...r }));
  let y = 0;
  for (const row of rows) { row.top = y; y += row.height + 2; }
  return rows;
}

export function drawTracks(canvas, session, state, rebuild) {
  const g = canvas.getContext("2d");
  if (rebuild || !cache || cachedFor !== session || cache.width !== canvas.width) {
    const rows = trackLayout(state), last = rows[rows.length - 1];
    const height = Math.max(minimumHeight, last.top + last.height + 2);
    if (canvas.height !== height) canvas.height = height;
    cache = document.createElement("canvas");
    cache.width = canvas.width; cache.height = canvas.height;
    if (session) paintTracks(cache.getContext("2d"), cache, session, state, rows);
    cachedFor = session;
  }
  g.clearRect(0, 0, canvas.width, canvas.height);
  g.drawImage(cache, 0, 0);
  const x = left + (canvas.width - left) * (state.duration ? state.t / state.duration : 0);
  g.strokeStyle = "#d00"; g.lineWidth = 1;
  g.beginPath(); g.moveTo(x + 0.5, 0); g.lineTo(x + 0.5, canvas.height); g.stroke();
}

function paintTracks(g, canvas, session, state, rows) {
  const width = canvas.width - left, c = session.series.columns, offset = session.offset;
  const toX = t => left + (t - offset) / state.duration * width;
  g.fillStyle = "#fff"; g.fillRect(0, 0, canvas.width, canvas.height);
  g.font = "11px sans-serif";
  for (const row of rows) {
    g.fillStyle = "#444";
    if (row.session) {
      g.fillText(row.name, 13, row.top + row.height - 2, left - 15);
      g.fillStyle = row.session.colour; g.fillRect(2, row.top + 3, 8, 8);
    } else g.fillText(row.name, 2, row.top + Math.min(row.height, 14) - 2);
    g.strokeStyle = "#eee"; g.beginPath(); g.moveTo(0, row.top + row.height + 0.5); g.lineTo(canvas.width, row.top + row.height + 0.5); g.stroke();
  }
  const own = rows.filter(r => r.session), [markers, blinks, openness, pose, expression, smile, attention] = rows.filter(r => !r.session);
  for (const m of session.series.markers) {
    const x = toX(m.t);
    g.fillStyle = "#000"; g.fillRect(x, markers.top, 1, markers.height);
    g.fillText(m.label, x + 2, markers.top + 18);
  }
  if (own.length) for (const row of own) sessionPresentations(g, row, t => left + (t - row.session.offset) / state.duration * width, state);
  else presentationMarks(g, session, markers, toX, state);
  for (let i = 0; i < c["blink.start"].length; i++) {
    g.fillStyle = c["blink.long"][i] ? "#a00" : "#333";
    g.fillRect(toX(c["blink.start"][i]), blinks.top + 2, Math.max(1, toX(c["blink.end"][i]) - toX(c["blink.start"][i])), blinks.height - 4);
  }
  line(g, c["frame.t"], c["frame.openL"], openness, 0, 1, "#1f77b4", toX, offset, state, width);
  line(g, c["frame.t"], c["frame.openR"], openness, 0, 1, "#ff7f0e", toX, offset, state, width);
  // Head pose: −45…45°, a grey line at 0°.
  g.strokeStyle = "#bbb"; g.beginPath(); g.moveTo(left, pose.top + pose.height / 2 + 0.5); g.lineTo(canvas.width, pose.top + pose.height / 2 + 0.5); g.stroke();
  g.fillStyle = "#888"; g.fillText("+45°", left - 30, pose.top + 24); g.fillText("0°", left - 16, pose.top + pose.height / 2 + 4);
  g.fillText("−45°", left - 30, pose.top + pose.height);
  line(g, c["frame.t"], c["frame.yaw"], pose, -45, 45, "#d62728", toX, offset, state, width);
  line(g, c["frame.t"], c["frame.pitch"], pose, -45, 45, "#2ca02c", toX, offset, state, width);
  line(g, c["frame.t"], c["frame.roll"], pose, -45, 45, "#9467bd", toX, offset, state, width);
  dominant(g, c, expression, offset, state, width);
  line(g, c["smile.t"], c["smile.v"], smile, 0, 1, "#e377c2", toX, offset, state, width);
  band(g, c["frame.t"], c["frame.face"], attention.top, 9, "#2a2", offset, state, width);
  band(g, c["gaze.t"], c["attention.onScreen"], attention.top + 11, 9, "#22a", offset, state, width);
}

// The sample at each pixel column's time (the last at or before it).
function columns(times, offset, state, width, body) {
  if (!times || !times.length) return;
  for (let px = 0; px < width; px++) {
    const t = px / width * state.duration + offset;
    const i = indexAt(times, t);
    if (i < 0 || t - times[i] > 0.5) continue;
    body(px + left, i);
  }
}

function line(g, times, values, row, lo, hi, colour, toX, offset, state, width) {
  g.strokeStyle = colour; g.lineWidth = 1; g.beginPath();
  let drawing = false;
  columns(times, offset, state, width, (x, i) => {
    const v = values[i];
    if (Number.isNaN(v)) { drawing = false; return; }
    const y = row.top + row.height - (Math.max(lo, Math.min(hi, v)) - lo) / (hi - lo) * row.height;
    if (drawing) g.lineTo(x, y); else g.moveTo(x, y);
    drawing = true;
  });
  g.stroke();
}

function band(g, times, values, top, height, colour, offset, state, width) {
  g.fillStyle = colour;
  columns(times, offset, state, width, (x, i) => { if (values[i] > 0.5) g.fillRect(x, top, 1, height); });
}

function dominant(g, c, row, offset, state, width) {
  const names = Object.keys(expressionColours);
  columns(c["expr.t"], offset, state, width, (x, i) => {
    let best = null, value = -1;
    for (const n of names) if (c["expr." + n] && c["expr." + n][i] > value) { value = c["expr." + n][i]; best = n; }
    if (best) { g.fillStyle = expressionColours[best]; g.fillRect(x, row.top, 1, row.height); }
  });
}

// Letters for a presentation's events on the markers track.
const eventLetters = { pause: "P", resume: "R", seek: "S", stall: "W", stallEnd: "w" };

// The presentations as bands under the markers, each event a tick with its letter: over the
// screen, the session's presentations at their times; over a presented stimulus, the showing
// itself across the axis and its events at their positions in the stimulus (a seek where it landed).
function presentationMarks(g, session, row, toX, state) {
  const marks = session.presentation
    ? [{ from: session.offset, to: session.offset + state.duration, label: session.presentation.label,
      events: session.presentation.events.map(e => ({ t: e.stimulusSeconds + session.offset, kind: e.kind })) }]
    : (session.presentations || []).map(p => ({ from: p.onset, to: p.offset === null ? session.offset + state.duration : p.offset,
      label: p.label, events: p.events }));
  for (const m of marks) {
    const x0 = toX(m.from), x1 = toX(m.to);
    g.fillStyle = "rgba(70, 130, 220, 0.25)"; g.fillRect(x0, row.top + 1, Math.max(1, x1 - x0), 9);
    g.fillStyle = "#246"; g.fillText(m.label, x0 + 2, row.top + 9);
    for (const e of m.events) {
      const x = toX(e.t);
      g.fillStyle = "#c00"; g.fillRect(x, row.top, 1, row.height);
      g.fillText(eventLetters[e.kind] || "?", x + 2, row.top + 20);
    }
  }
}

// One session's own presentations on its own row: bands in the session's colour, events as ticks.
function sessionPresentations(g, row, toX, state) {
  const session = row.session;
  for (const p of session.presentations) {
    const x0 = toX(p.onset), x1 = toX(p.offset === null ? session.offset + state.duration : p.offset);
    g.globalAlpha = 0.35; g.fillStyle = session.colour; g.fillRect(x0, row.top + 1, Math.max(1, x1 - x0), row.height - 2);
    g.globalAlpha = 1; g.fillStyle = "#246"; g.font = "10px sans-serif";
    if (x1 - x0 > 30) g.fillText(p.label, x0 + 2, row.top + 11, x1 - x0 - 4);
    for (const e of p.events) {
      const x = toX(e.t);
      g.fillStyle = "#c00"; g.fillRect(x, row.top, 1, row.height);
      g.fillText(eventLetters[e.kind] || "?", x + 2, row.top + 11);
    }
  }
  g.font = "11px sans-serif";
}
