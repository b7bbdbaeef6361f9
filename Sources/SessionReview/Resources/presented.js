// A session's presentations (`gazerec start --present`) as the server sends them
// (ReviewCatalog.presentations): times in seconds since the session's begin, positions in the
// stimulus's own seconds, rectangles in screen points. `clock` is the library's PresentationClock
// as its segments; it is evaluated here by the same one rule, never re-derived from the events.
import { indexAt } from "/page/series.js";

// The stimulus's position at session time t (seconds since the begin), null outside onset…offset:
// the last segment starting at or before t, stimulusSeconds + rate × (t − start), kept within
// 0…limit (PresentationClock.stimulusSeconds(at:)).
export function stimulusSecondsAt(clock, t) {
  if (t < clock.onset || (clock.offset !== null && t >= clock.offset)) return null;
  if (!clock.starts) clock.starts = Float64Array.from(clock.segments, s => s.start);
  const i = indexAt(clock.starts, t);
  if (i < 0) return null;
  const s = clock.segments[i];
  const position = s.stimulusSeconds + s.rate * (t - s.start);
  return Math.min(Math.max(position, 0), clock.limit === null ? Infinity : clock.limit);
}

// The presentation on the screen at t (onset included, offset excluded), null between items; of
// two that overlap, the later (as the library's `showing(at:)`).
export function showingAt(presentations, t) {
  for (let i = presentations.length - 1; i >= 0; i--) {
    const p = presentations[i];
    if (p.onset <= t && (p.offset === null || t < p.offset)) return p;
  }
  return null;
}

// One line for the presentations table and the tracks: an event's kind and its position.
export function eventText(e) {
  const at = e.stimulusSeconds.toFixed(2);
  return e.kind === "seek" ? `seek ${e.fromStimulusSeconds === null ? "?" : e.fromStimulusSeconds.toFixed(2)}→${at} s` : `${e.kind} at ${at} s`;
}

// Keeps the rows of a time column (and its value columns) whose time the clock places in the
// stimulus, re-timed to that position, in position order (stable: a pause's samples keep theirs);
// `sessionName`, when given, keeps each row's session time under that name.
function alignGroup(c, out, clock, timeName, valueNames, sessionName) {
  const times = c[timeName];
  if (!times) return;
  const kept = [];
  for (let i = 0; i < times.length; i++) {
    const s = stimulusSecondsAt(clock, times[i]);
    if (s !== null) kept.push([s, i]);
  }
  kept.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  out[timeName] = Float64Array.from(kept, k => k[0]);
  for (const name of valueNames) if (c[name]) out[name] = Float32Array.from(kept, k => c[name][k[1]]);
  if (sessionName) out[sessionName] = Float64Array.from(kept, k => times[k[1]]);
}

// A session's series aligned on one presentation's playback seconds, as the stimulus commands
// align a showing (StimulusViewing): each sample at the stimulus position on the screen when it
// was taken; a blink at its start's position; a fixation under way at onset or offset trimmed to
// the presentation, placed at its (trimmed) start's position and keeping its length. Markers and
// the presentation's events move to their positions too.
export function alignSeries(series, presentation) {
  const c = series.columns, clock = presentation.clock, out = {};
  const names = prefix => Object.keys(c).filter(n => n.startsWith(prefix) && !n.endsWith(".t"));
  alignGroup(c, out, clock, "gaze.t", ["gaze.x", "gaze.y", "attention.onScreen"], "gaze.session");
  alignGroup(c, out, clock, "frame.t", names("frame."));
  alignGroup(c, out, clock, "expr.t", names("expr."));
  alignGroup(c, out, clock, "smile.t", ["smile.v"]);
  const blinks = [];
  for (let i = 0; i < (c["blink.start"] || []).length; i++) {
    const s = stimulusSecondsAt(clock, c["blink.start"][i]);
    if (s !== null) blinks.push([s, s + (c["blink.end"][i] - c["blink.start"][i]), c["blink.long"][i]]);
  }
  blinks.sort((a, b) => a[0] - b[0]);
  out["blink.start"] = Float64Array.from(blinks, b => b[0]);
  out["blink.end"] = Float64Array.from(blinks, b => b[1]);
  out["blink.long"] = Float32Array.from(blinks, b => b[2]);
  const end = clock.offset === null ? Infinity : clock.offset, fixations = [];
  for (let i = 0; i < (c["fix.start"] || []).length; i++) {
    const from = Math.max(c["fix.start"][i], clock.onset), to = Math.min(c["fix.end"][i], end);
    const s = c["fix.start"][i] >= clock.onset || c["fix.end"][i] > clock.onset ? stimulusSecondsAt(clock, from) : null;
    if (s !== null) fixations.push([s, s + Math.max(0, to - from), c["fix.x"][i], c["fix.y"][i]]);
  }
  fixations.sort((a, b) => a[0] - b[0]);
  ["fix.start", "fix.end", "fix.x", "fix.y"].forEach((name, j) => {
    out[name] = (j < 2 ? Float64Array : Float32Array).from(fixations, f => f[j]);
  });
  const markers = series.markers.map(m => ({ label: m.label, t: stimulusSecondsAt(clock, m.t) })).filter(m => m.t !== null);
  return { begin: series.begin, screen: series.screen, markers, columns: out };
}
