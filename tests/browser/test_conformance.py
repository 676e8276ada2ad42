"""The page's rules (docs/play/rules.js), run in the browser, reproduce every golden trace of the
Python reference (tests/browser/golden_traces.json, scripts/make_golden_traces.py) event for event;
its seeded deals are numpy's and its refusals the command line's, word for word."""
import json
from pathlib import Path

GOLDEN = Path(__file__).with_name("golden_traces.json")

#: runs in the page: replays every golden trace with SolitaireRules; returns what differs
CONFORMANCE_JS = """
async () => {
  const R = window.SolitaireRules;
  const golden = await (await fetch('/tests/browser/golden_traces.json')).json();
  const firstDifference = (a, b, path) => {
    if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) {
      return `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
    }
    if (a && typeof a === 'object') {
      const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
      if (JSON.stringify(ka) !== JSON.stringify(kb)) return `${path}: keys ${ka} != ${kb}`;
      for (const k of ka) { const d = firstDifference(a[k], b[k], `${path}.${k}`); if (d) return d; }
      return null;
    }
    return a === b ? null : `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
  };
  const differences = [];
  let traces = 0, steps = 0;
  for (const g of golden.traces) {
    const deck = new R.Deck(g.suits, g.ranks);
    const variant = R.Variant.parse(g.variant);
    const order = R.parseCards(g.trace.order, deck);
    const trace = R.play(order, deck, variant, { seed: g.seed === undefined ? 0n : BigInt(g.seed), cap: g.cap });
    const mine = R.traceToDict(trace);
    const d = firstDifference(mine, g.trace, 'trace');
    if (d) differences.push(`${g.variant} ${g.suits}x${g.ranks} ${g.trace.order}: ${d}`);
    traces += 1;
    steps += mine.steps.length;
  }
  for (const x of golden.deals) {
    const order = R.seededOrder(BigInt(x.seed), x.size);
    if (JSON.stringify(order) !== JSON.stringify(x.order)) differences.push(`deal of seed ${x.seed}: ${order}`);
  }
  const said = (f) => {
    try { const r = f(); return { accepted: Array.isArray(r) ? r : String(r) }; }
    catch (e) { if (!(e instanceof R.UsageError)) throw e; return e.message; }
  };
  const refusals = golden.refusals;
  for (const x of refusals.deals) {
    const m = said(() => R.parseCards(x.text, new R.Deck(x.suits, x.ranks), { complete: x.complete, what: 'deck' }));
    if (JSON.stringify(m) !== JSON.stringify(x.message)) differences.push(`deal ${x.text}: ${JSON.stringify(m)}`);
  }
  for (const x of refusals.variants) {
    const m = said(() => R.Variant.fromOptions(x.game, x.options));
    if (JSON.stringify(m) !== JSON.stringify(x.message)) differences.push(`variant ${x.options}: ${JSON.stringify(m)}`);
  }
  for (const x of refusals.decks) {
    const m = said(() => new R.Deck(x.suits, x.ranks));
    if (JSON.stringify(m) !== JSON.stringify(x.message)) differences.push(`deck ${x.suits}x${x.ranks}: ${JSON.stringify(m)}`);
  }
  return { traces, steps, deals: golden.deals.length, differences };
}
"""


def test_page_rules_reproduce_every_golden_trace(open_page):
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    page = open_page("?game=one-handed&seed=1")
    report = page.evaluate(CONFORMANCE_JS)
    assert report["differences"] == []
    assert report["traces"] == len(golden["traces"]) > 500
    assert report["steps"] == sum(len(g["trace"]["steps"]) for g in golden["traces"])
    assert report["deals"] == len(golden["deals"])

