// The output of lanes that run side by side (scripts/test.js), kept readable: one lane streams live, the others'
// lines wait and are shown whole, in lane order, as soon as the live one ends; and node's closing summary of each
// runner process is held back, so the run ends with one summary for all of them.

/** One lane's lines at a time: the first lane streams; a waiting lane's lines are written when its turn comes. */
export class LaneOutput {
  #lanes = [];
  #write;

  constructor(write) {
    this.#write = write;
  }

  lane() {
    const lane = { lines: [], live: false, ended: false, shown: false };
    this.#lanes.push(lane);
    if (!this.#lanes.some((l) => l.live)) this.#show(lane);
    return {
      line: (text) => (lane.live ? this.#write(text) : lane.lines.push(text)),
      end: () => {
        lane.ended = true;
        if (lane.live) this.#next();
      },
    };
  }

  /** Every waiting lane's lines now, in lane order (the run is being stopped: nothing held back is lost). */
  flush() {
    for (const lane of this.#lanes) {
      if (lane.live || lane.shown) continue;
      for (const text of lane.lines) this.#write(text);
      lane.lines = [];
    }
  }

  #show(lane) {
    for (const text of lane.lines) this.#write(text);
    lane.lines = [];
    lane.live = !lane.ended;
    lane.shown = lane.ended;
  }

  #next() {
    for (const lane of this.#lanes) {
      if (lane.live) {
        lane.live = false;
        lane.shown = true;
        continue;
      }
      if (lane.shown) continue;
      this.#show(lane);
      if (lane.live) return;
    }
  }
}

const SUMMARY_KEYS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo', 'duration_ms'];
// biome-ignore lint/suspicious/noControlCharactersInRegex: the spec reporter's colour codes, when it has them.
const plain = (line) => line.replace(/\x1b\[[0-9;]*m/g, '');
const SUMMARY_LINE = /^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) (\d+(?:\.\d+)?)$/;

/**
 * Holds back the summary of node's spec reporter (its eight "ℹ key N" lines in a row, followed only by the list of
 * failing tests when there are some) and gives back every other line. `end()` returns that summary's figures, or
 * undefined when there was none.
 */
export class SummaryFilter {
  #held = [];
  #summary;

  /** The lines to write now (none while a run of summary-shaped lines might still be the summary). */
  push(line) {
    const m = SUMMARY_LINE.exec(plain(line));
    if (m && m[1] === SUMMARY_KEYS[this.#held.length]) {
      this.#held.push(m);
      if (this.#held.length === SUMMARY_KEYS.length) {
        this.#summary = Object.fromEntries(this.#held.splice(0).map(([, key, value]) => [key, Number(value)]));
      }
      return [];
    }
    const out = this.#held.splice(0).map((held) => held.input);
    if (m && m[1] === SUMMARY_KEYS[0]) this.#held.push(m);
    else out.push(line);
    return out;
  }

  end() {
    return { lines: this.#held.splice(0).map((held) => held.input), summary: this.#summary };
  }
}

/** node's summary lines for the whole run: the processes' figures added up, `durationMs` the run's wall time. */
export function summaryLines(summaries, durationMs) {
  return SUMMARY_KEYS.map((key) => {
    const value = key === 'duration_ms' ? durationMs : summaries.reduce((n, s) => n + (s[key] ?? 0), 0);
    return `ℹ ${key} ${value}`;
  });
}
