/* Play a deal: the page. Reads the deal from the address, plays it with rules.js, draws it.
 *
 * Address (query) contract: game, variant ("key=value" pairs separated by commas), suits, ranks,
 * deck (card notation) and seed. Once the deal is played the score is in [data-testid=score] and
 * "won" or "lost" in [data-testid=result]; a refused deal puts its one-line reason in
 * [data-testid=error].
 */
(function () {
  "use strict";
  const R = window.SolitaireRules;
  const FIGURES = window.SOLITAIRE_FIGURES || null;
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  };
  const SVG = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs = {}) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  };
  const pct = (p, digits = 2) => `${(100 * p).toFixed(digits)}%`;
  const fmtInt = (n) => Number(n).toLocaleString("en-US");
  const SQRT_HALF_PERCENT = 1 / Math.SQRT2 / 100;

  /** What the page shows now: set by load(). */
  const page = { state: null, odds: null, oddsDone: false };
  window.playPage = page; // read by the browser tests

  // ---------------------------------------------------------------------------------------------
  // the address

  function readQuery(search) {
    const q = new URLSearchParams(search);
    const get = (key) => (q.has(key) ? q.get(key) : null);
    return { game: get("game") || "one-handed", variant: get("variant") || "", suits: get("suits") || "4",
      ranks: get("ranks") || "13", deck: get("deck"), seed: get("seed") };
  }

  function queryString(s) {
    const q = new URLSearchParams();
    q.set("game", s.game);
    const variant = typeof s.variant === "string" ? s.variant : s.variant.queryString();
    if (variant) q.set("variant", variant);
    q.set("suits", String(s.suits));
    q.set("ranks", String(s.ranks));
    if (s.deckText) q.set("deck", s.deckText);
    if (s.seed !== null && s.seed !== undefined && s.seed !== "") q.set("seed", String(s.seed));
    return "?" + q.toString().replace(/%2C/g, ",").replace(/%3D/g, "=");
  }

  /** The deal the query asks for, or a UsageError (one line) saying why not. */
  function resolve(query) {
    const game = query.game;
    R.getGame(game);
    const variant = R.Variant.fromQuery(game, query.variant);
    const deck = new R.Deck(query.suits, query.ranks);
    let seed = query.seed !== null && query.seed.trim() !== "" ? R.parseSeed(query.seed) : null;
    const deckText = query.deck !== null && query.deck.trim() !== "" ? query.deck.trim() : null;
    let order, shuffled;
    if (deckText !== null) {
      if (seed !== null && game !== "hand") {
        throw new R.UsageError("give deck or seed, not both (seed shuffles a deck)");
      }
      order = R.parseCards(deckText, deck, { what: "deck" });
      if (game === "hand" && seed === null) seed = R.newSeed(); // the leftover shuffles' seed, kept in the link
      shuffled = false;
    } else {
      if (seed === null) seed = R.newSeed();
      order = R.seededOrder(seed, deck.size);
      shuffled = true;
    }
    return { game, variant, deck, order, seed, shuffled, deckText };
  }

  // ---------------------------------------------------------------------------------------------
  // cards

  function cardNode(card, deck, cls = "") {
    const suit = deck.suit(card), rank = deck.rank(card);
    const standard = deck.ranks <= 13 && deck.suits <= 4;
    const colour = suit < 4 ? (suit === 1 || suit === 2 ? "red" : "black") : `suit${suit}`;
    const node = el("span", { class: `card ${colour} ${standard ? "" : "fantasy"} ${cls}`.trim(),
      title: R.cardName(card, deck) });
    if (standard) {
      node.append(el("span", { class: "r", text: R.RANK_NAMES[rank] }), el("span", { class: "s", text: R.SUIT_SYMBOLS[suit] }));
    } else {
      node.append(el("span", { class: "r", text: String(rank + 1) }), el("span", { class: "s", text: `s${suit + 1}` }));
    }
    return node;
  }

  function cardRow(cards, deck, classOf = () => "", small = false) {
    const row = el("div", { class: "row" });
    cards.forEach((c, i) => row.append(cardNode(c, deck, `${classOf(c, i)} ${small ? "small" : ""}`)));
    return row;
  }

  // ---------------------------------------------------------------------------------------------
  // the form

  function fillVariantFields(game, variant) {
    const box = $("variant");
    box.replaceChildren(el("legend", { text: "Rules" }));
    for (const param of R.getGame(game).params) {
      const select = el("select", { name: param.name, "data-key": param.name });
      for (const value of param.values) {
        const option = el("option", { value, text: value + (value === param.values[0] ? " (as written)" : "") });
        select.append(option);
      }
      select.value = variant && variant.values[param.name] ? variant.values[param.name] : param.values[0];
      box.append(el("label", { title: param.help }, param.name, select));
    }
  }

  function formVariant() {
    return Array.from($("variant").querySelectorAll("select"))
      .filter((s) => s.value !== s.options[0].value).map((s) => `${s.dataset.key}=${s.value}`).join(",");
  }

  function formDeck() {
    try { return new R.Deck($("suits").value, $("ranks").value); } catch (err) { return null; }
  }

  function showError(message) {
    const box = $("error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  /** Live check of the cards typed so far: count, refusal, and the picker's used cards. */
  function checkDeckInput() {
    const deck = formDeck();
    const text = $("deck").value;
    let used = new Set();
    if (!deck) { $("deck-count").textContent = ""; buildPicker(null, used); return; }
    try {
      const cards = R.parseCards(text, deck, { complete: false, what: "deck" });
      used = new Set(cards);
      $("deck-count").textContent = text.trim() ? `${cards.length} of ${deck.size} cards` : "";
      if ($("error").dataset.live === "1") { showError(""); delete $("error").dataset.live; }
    } catch (err) {
      if (!(err instanceof R.UsageError)) throw err;
      showError(err.message);
      $("error").dataset.live = "1";
    }
    buildPicker(deck, used);
  }

  let pickerDeck = null;
  function buildPicker(deck, used) {
    const box = $("picker");
    const key = deck ? String(deck) : "";
    if (pickerDeck !== key) {
      pickerDeck = key;
      box.replaceChildren();
      if (!deck || deck.size > 104) {
        box.append(el("p", { class: "muted", text: deck ? "Type the cards for a deck this large." : "" }));
        return;
      }
      box.style.gridTemplateColumns = `repeat(${deck.ranks}, 2.5em)`;
      for (let s = 0; s < deck.suits; s++) {
        for (let r = 0; r < deck.ranks; r++) {
          const card = s * deck.ranks + r;
          const b = cardNode(card, deck);
          const button = el("button", { type: "button", class: b.className, title: R.cardName(card, deck),
            "data-card": String(card) });
          button.append(...b.childNodes);
          button.addEventListener("click", () => {
            const text = $("deck").value.trim();
            $("deck").value = (text ? text + " " : "") + R.cardName(card, deck);
            checkDeckInput();
          });
          box.append(button);
        }
      }
    }
    for (const button of box.querySelectorAll("button[data-card]")) button.disabled = used.has(Number(button.dataset.card));
  }

  function fillForm(query, resolved) {
    $("game").value = R.GAME_NAMES.includes(query.game) ? query.game : "one-handed";
    let variant = null;
    try { variant = R.Variant.fromQuery($("game").value, query.variant); } catch (err) { variant = null; }
    fillVariantFields($("game").value, variant);
    $("suits").value = query.suits;
    $("ranks").value = query.ranks;
    if (resolved) {
      $("deck").value = R.formatCards(resolved.order, resolved.deck);
      $("seed").value = resolved.seed !== null ? String(resolved.seed) : "";
    } else {
      $("deck").value = query.deck || "";
      $("seed").value = query.seed || "";
    }
    checkDeckInput();
  }

  /** The query the form asks for (the typed cards, or the seed when the cards are the seed's deal). */
  function formQuery() {
    const game = $("game").value;
    const text = $("deck").value.trim();
    const seed = $("seed").value.trim();
    const s = page.state;
    // the cards shown are the seed's deal (left as they were): the seed deals again, for the deck now chosen
    const fromSeed = !text || (s && s.shuffled && text === R.formatCards(s.order, s.deck));
    const query = { game, variant: formVariant(), suits: $("suits").value, ranks: $("ranks").value,
      deckText: fromSeed ? null : text, seed: null };
    if (fromSeed) query.seed = text && s ? seed || String(s.seed) : seed;
    else if (game === "hand") query.seed = seed || null;
    return query;
  }

  function go(query) {
    history.pushState(null, "", queryString(query));
    load();
  }

  // ---------------------------------------------------------------------------------------------
  // playing

  function load() {
    stopRunning();
    const query = readQuery(location.search);
    let resolved;
    try {
      resolved = resolve(query);
    } catch (err) {
      if (!(err instanceof R.UsageError)) throw err;
      fillForm(query, null);
      showError(err.message);
      delete $("error").dataset.live;
      $("game-panel").hidden = true;
      page.state = null;
      let variant = null, deck = null; // what of the query is sound still frames the figures
      try { variant = R.Variant.fromQuery(query.game, query.variant); } catch (e) { variant = null; }
      try { deck = new R.Deck(query.suits, query.ranks); } catch (e) { deck = null; }
      renderFigures(query.game, variant, deck);
      renderCommands(null);
      $("link").href = location.href;
      return;
    }
    showError("");
    const s = resolved;
    s.trace = R.play(s.order, s.deck, s.variant, { seed: s.seed ?? 0n });
    s.index = 0;
    page.state = s;
    // the address names the deal completely (a seed drawn here included), so it replays
    const canonical = queryString({ game: s.game, variant: s.variant, suits: s.deck.suits, ranks: s.deck.ranks,
      deckText: s.shuffled ? null : R.formatCards(s.order, s.deck), seed: s.seed });
    if (canonical !== location.search) history.replaceState(null, "", canonical);
    $("link").href = location.href;
    fillForm(query, s);
    $("seed-note").textContent = s.shuffled
      ? `Shuffled from seed ${s.seed}: the deal solitaire play --game ${s.game} --seed ${s.seed} plays.`
      : s.game === "hand" ? `Seed ${s.seed} shuffles the leftover cards between iterations.` : "";
    prepare(s);
    $("game-panel").hidden = false;
    renderOutcome(s);
    $("log-title").textContent = s.game === "hand" ? "Every step of the iteration shown" : "Every step";
    renderLog(s);
    renderIterations(s);
    show(0);
    renderFigures(s.game, s.variant, s.deck);
    renderCommands(s);
    startOdds(s);
  }

  /** Per-step facts the views need: cards dealt after each step, the sizes, the snapshots. */
  function prepare(s) {
    const steps = s.trace.steps;
    const key = { "one-handed": "row", hand: "stack", prisoners: "piles" }[s.game];
    s.dealtAt = [0];
    s.before = [null];
    let dealt = 0, last = [];
    steps.forEach((e) => {
      if (e.event === "deal") dealt++;
      if (e.event === "iteration") { dealt = 0; last = []; }
      s.before.push(last);
      if (e[key]) last = e[key];
      s.dealtAt.push(dealt);
    });
    // sizes after each card (one-handed, prisoners) or after each step (hand)
    if (s.game === "hand") {
      s.sizes = [0];
      let size = 0;
      for (const e of steps) {
        if (e.stack) size = e.stack.length;
        if (e.event === "iteration") size = 0;
        s.sizes.push(size);
      }
    } else {
      s.sizes = new Array(s.deck.size + 1).fill(0);
      steps.forEach((e, i) => { if (e[key]) s.sizes[s.dealtAt[i + 1]] = e[key].length; });
    }
  }

  function renderOutcome(s) {
    const game = R.getGame(s.game);
    $("outcome-title").textContent = `${game.title}, ${s.deck.suits}×${s.deck.ranks} deck`;
    $("score").textContent = String(s.trace.score);
    $("score-unit").textContent = game.scoreUnit;
    const result = $("result");
    result.textContent = s.trace.won ? "won" : "lost";
    result.className = `outcome-box result ${s.trace.won ? "won" : "lost"}`;
    const more = [];
    if (s.game === "hand") {
      more.push(`${s.trace.extra.iterations} iteration${s.trace.extra.iterations === 1 ? "" : "s"}`
        + (!s.trace.won && s.trace.extra.iterations === R.DEFAULT_CAP ? ` (stopped at ${R.DEFAULT_CAP})` : ""));
    }
    if (s.game === "one-handed" && s.variant.rules.winAny && s.trace.won && s.trace.score > 0) {
      more.push("won: the row was empty during the deal (win=any)");
    }
    more.push(`${s.trace.steps.length} steps`);
    $("outcome-more").textContent = more.join(" · ");
    $("slider").max = String(s.trace.steps.length);
  }

  function lineText(s, e) { return R.describe(e, s.deck); }

  /** The step list: the whole game, or for Hand Solitaire the iteration of step `index`. */
  function renderLog(s, index = 0) {
    const steps = s.trace.steps;
    let from = 0, to = steps.length;
    if (s.game === "hand") {
      from = Math.max(0, index - 1);
      while (from > 0 && steps[from].event !== "iteration") from--;
      to = from + 1;
      while (to < steps.length && steps[to].event !== "iteration") to++;
    }
    s.logRange = [from, to];
    const log = $("log");
    log.replaceChildren();
    const frag = document.createDocumentFragment();
    for (let i = from; i < to; i++) {
      const e = steps[i];
      const removal = e.event === "remove" || e.event === "discard" || e.event === "move";
      let text = lineText(s, e);
      if (e.event === "deal") text = `card ${s.dealtAt[i + 1]}: ${text}`;
      const li = el("li", { class: removal ? "removal" : "", value: String(i + 1), text });
      li.addEventListener("click", () => show(i + 1));
      frag.append(li);
    }
    log.append(frag);
  }

  function renderIterations(s) {
    const box = $("iterations");
    box.replaceChildren();
    if (s.game !== "hand") return;
    box.append(el("span", { class: "muted", text: "Iterations:" }));
    s.trace.steps.forEach((e) => {
      if (e.event !== "end") return;
      const start = s.trace.steps.findIndex((x) => x.event === "iteration" && x.iteration === e.iteration);
      const b = el("button", { type: "button", class: e.won ? "won" : "", "data-iteration": String(e.iteration),
        text: `${e.iteration}: ${e.won ? "won" : `${e.leftovers.length} left`}` });
      b.addEventListener("click", () => show(start + 1));
      box.append(b);
    });
  }

  /** Draw step `index` (0: nothing dealt yet; i: after the i-th event). */
  function show(index) {
    const s = page.state;
    if (!s) return;
    index = Math.max(0, Math.min(s.trace.steps.length, index));
    s.index = index;
    $("slider").value = String(index);
    $("position").textContent = `step ${index} of ${s.trace.steps.length}`
      + (s.game !== "hand" ? ` · ${s.dealtAt[index]} of ${s.deck.size} cards dealt` : "");
    const e = index ? s.trace.steps[index - 1] : null;
    renderCaption(s, e, index);
    renderBoard(s, e, index);
    for (const li of $("log").querySelectorAll("li.current")) li.classList.remove("current");
    if (index && (index - 1 < s.logRange[0] || index - 1 >= s.logRange[1])) renderLog(s, index);
    if (index) {
      const li = $("log").children[index - 1 - s.logRange[0]];
      li.classList.add("current");
      const box = $("log");
      if (li.offsetTop < box.scrollTop || li.offsetTop > box.scrollTop + box.clientHeight - 20) {
        box.scrollTop = li.offsetTop - box.clientHeight / 2;
      }
    }
    if (s.game === "hand") {
      const current = e ? (e.iteration ?? currentIteration(s, index)) : 1;
      for (const b of $("iterations").querySelectorAll("button")) b.classList.toggle("current", Number(b.dataset.iteration) === current);
    }
    drawSizeChart(s);
    drawOddsChart(s);
    for (const id of ["first", "back"]) $(id).disabled = index === 0;
    for (const id of ["forward", "last"]) $(id).disabled = index === s.trace.steps.length;
  }

  function currentIteration(s, index) {
    for (let i = index - 1; i >= 0; i--) if (s.trace.steps[i].iteration) return s.trace.steps[i].iteration;
    return 1;
  }

  function renderCaption(s, e, index) {
    const cap = $("caption");
    cap.replaceChildren();
    if (!e) {
      cap.append(s.game === "hand" ? "Press ▶ to start the first iteration." : "Press ▶ to deal the first card.");
      return;
    }
    const what = el("span", { class: "what", text: lineText(s, e) });
    if (e.event === "deal") {
      const where = s.game === "hand" ? ` (iteration ${currentIteration(s, index)})` : "";
      cap.append(`Card ${s.dealtAt[index]} of ${s.deck.size}${where}: `, what);
    } else if (e.event === "remove" || e.event === "discard") {
      const left = (e.row || e.stack).length;
      cap.append(what, ` → ${left} card${left === 1 ? "" : "s"} left in the ${e.row ? "row" : "stack"}`);
    } else if (e.event === "move") {
      cap.append(what, ` → ${e.piles.length} pile${e.piles.length === 1 ? "" : "s"}`);
    } else {
      cap.append(what);
    }
    if (index === s.trace.steps.length) {
      cap.append(el("br"), `End of the game: ${s.trace.won ? "won" : "lost"}, score ${s.trace.score} (${R.getGame(s.game).scoreUnit}).`);
    }
  }

  function renderBoard(s, e, index) {
    const board = $("board");
    board.replaceChildren();
    const deck = s.deck;
    const label = (text) => el("div", { class: "label", text });
    if (s.game === "prisoners") {
      const removal = e && e.event === "move";
      const piles = removal ? s.before[index] : e ? e.piles : [];
      if (!piles.length) { board.append(el("div", { class: "empty", text: "No cards dealt yet." })); return; }
      board.append(label(removal ? "Before the move (the moving pile highlighted, and the pile it goes onto)"
        : "Piles, left to right; each pile's top card is at the bottom of its column"));
      const row = el("div", { class: "piles" });
      piles.forEach((pile, i) => {
        const top = pile[pile.length - 1];
        let cls = "pile";
        if (removal && top === e.card) cls += " moving";
        if (removal && top === e.onto) cls += " target";
        const node = el("div", { class: cls });
        pile.forEach((c, j) => {
          let cc = "";
          if (j === pile.length - 1 && removal && (top === e.card || top === e.onto)) cc = "match";
          if (!removal && e && e.event === "deal" && i === piles.length - 1) cc = "new";
          node.append(cardNode(c, deck, cc));
        });
        row.append(node);
      });
      board.append(row);
      return;
    }
    const key = s.game === "hand" ? "stack" : "row";
    const word = s.game === "hand" ? "Stack, bottom → top" : "Row, first card left";
    if (e && e.event === "iteration") {
      board.append(label(`Iteration ${e.iteration}: the deck, first card dealt first`),
        el("div", { class: "strip" }, cardRow(e.order, deck, () => "", true)));
      return;
    }
    if (e && e.event === "end") {
      board.append(label(`Discarded in iteration ${e.iteration} (${e.discards.length} cards, in the order discarded)`),
        el("div", { class: "strip" }, e.discards.length ? cardRow(e.discards, deck, () => "", true) : el("div", { class: "empty", text: "none" })));
      board.append(label(e.won ? "Left: nothing, the game is won" : `Left on the stack (${e.leftovers.length})`),
        el("div", { class: "strip" }, e.leftovers.length ? cardRow(e.leftovers, deck, () => "", true) : el("div", { class: "empty", text: "—" })));
      if (e.next_order) {
        const shuffled = s.variant.rules.reshuffle ? "the leftovers shuffled" : "the leftovers from the top down";
        board.append(label(`Next deck: the discards, last discarded first, then ${shuffled}`),
          el("div", { class: "strip" }, cardRow(e.next_order, deck, (c, i) => (i >= e.discards.length ? "match" : ""), true)));
      }
      return;
    }
    const removal = e && (e.event === "remove" || e.event === "discard");
    const cards = removal ? s.before[index] : e ? e[key] : [];
    if (!cards.length) {
      board.append(label(word), el("div", { class: "empty", text: e ? "Empty." : "No cards dealt yet." }));
      return;
    }
    board.append(label(removal ? `${word}, before the removal (matching pair outlined, removed cards struck)` : word));
    const removed = removal ? new Set(e.removed) : new Set();
    board.append(cardRow(cards, deck, (c, i) => {
      if (removal) {
        if (c === e.top || c === e.fourth) return removed.has(c) ? "match removed" : "match";
        return removed.has(c) ? "removed" : "";
      }
      if (e && (e.event === "deal" || e.event === "rotate") && i === cards.length - 1) return "new";
      return "";
    }));
  }

  // ---------------------------------------------------------------------------------------------
  // charts

  const CHART = { left: 54, right: 12, top: 10, bottom: 24 };

  function chartFrame(svg) {
    const width = Math.max(300, svg.clientWidth || 800), height = svg.clientHeight || 170;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.replaceChildren();
    return { width, height, x0: CHART.left, x1: width - CHART.right, y0: height - CHART.bottom, y1: CHART.top };
  }

  function drawSizeChart(s) {
    const svg = $("size-chart");
    const f = chartFrame(svg);
    const hand = s.game === "hand";
    $("size-title").textContent = hand ? "Cards on the stack at every step (dashed lines: a new iteration starts)"
      : s.game === "one-handed" ? "Cards in the row after each card" : "Piles after each card";
    const values = s.sizes;
    const n = values.length - 1;
    const ymax = Math.max(4, ...values);
    const X = (i) => f.x0 + (n ? (i / n) : 0) * (f.x1 - f.x0);
    const Y = (v) => f.y0 - (v / ymax) * (f.y0 - f.y1);
    axes(svg, f, n, [0, Math.round(ymax / 2), ymax].map((v) => [Y(v), String(v)]), X);
    if (hand) {
      s.trace.steps.forEach((e, i) => {
        if (e.event === "iteration" && e.iteration > 1) svg.append(svgEl("line", { class: "iter", x1: X(i + 1), x2: X(i + 1), y1: f.y1, y2: f.y0 }));
      });
    }
    let d = "";
    values.forEach((v, i) => { d += `${i ? "L" : "M"}${X(i).toFixed(1)},${Y(v).toFixed(1)}`; });
    svg.append(svgEl("path", { class: "line", d }));
    const at = hand ? s.index : s.dealtAt[s.index];
    svg.append(svgEl("line", { class: "cursor", x1: X(at), x2: X(at), y1: f.y1, y2: f.y0 }));
  }

  /** Axes, the y ticks given, x ticks every few cards (or steps); the figure's caption says what x counts. */
  function axes(svg, f, n, yTicks, X) {
    for (const [y, text] of yTicks) {
      svg.append(svgEl("line", { class: "grid", x1: f.x0, x2: f.x1, y1: y, y2: y }));
      const t = svgEl("text", { x: f.x0 - 6, y: y + 4, "text-anchor": "end" });
      t.textContent = text;
      svg.append(t);
    }
    svg.append(svgEl("line", { class: "axis", x1: f.x0, x2: f.x1, y1: f.y0, y2: f.y0 }));
    svg.append(svgEl("line", { class: "axis", x1: f.x0, x2: f.x0, y1: f.y1, y2: f.y0 }));
    const step = n <= 20 ? 2 : n <= 60 ? 5 : n <= 200 ? 20 : 10 ** Math.floor(Math.log10(n / 3));
    for (let i = 0; i <= n; i += step) {
      const t = svgEl("text", { x: X(i), y: f.y0 + 15, "text-anchor": "middle" });
      t.textContent = String(i);
      svg.append(t);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // One-Handed odds after each card

  let oddsTimer = null;
  function startOdds(s) {
    clearTimeout(oddsTimer);
    page.odds = null;
    page.oddsDone = false;
    const figure = $("odds-figure");
    figure.hidden = s.game !== "one-handed";
    figure.removeAttribute("data-done");
    if (s.game !== "one-handed") return;
    $("odds-now").textContent = "Counting the odds…";
    $("odds-note").textContent = "";
    const games = Math.max(2000, Math.min(20000, Math.floor(1e6 / Math.max(1, s.deck.size))));
    const seed = s.shuffled ? s.seed : 1n;
    const job = R.oddsJob(s.order, s.deck, s.variant, { budgetMs: 1000, games, seed });
    page.odds = job.out;
    const work = () => { // a position or a few at a time, so that the page keeps answering
      if (page.state !== s) return;
      const until = performance.now() + 40;
      let done = false;
      while (!done && performance.now() < until) done = job.step();
      if (!done) { oddsTimer = setTimeout(work, 0); return; }
      page.oddsDone = true;
      figure.setAttribute("data-done", "1");
      const odds = job.out;
      const exactFrom = odds.findIndex((o) => o.method === "exact");
      const simulated = odds.filter((o) => o.method === "simulated");
      $("odds-note").textContent = (exactFrom >= 0
        ? `Exact from ${s.deck.size - exactFrom} cards to come (every order counted in about a second). ` : "")
        + (simulated.length ? `Before that simulated: ${fmtInt(games)} random orders of the cards to come after each card `
          + `(seed ${seed} + the cards dealt); 95% intervals Wilson's (Clopper-Pearson's below 10 wins or losses).` : "");
      drawOddsChart(s);
    };
    oddsTimer = setTimeout(work, 200); // after the game is drawn
  }

  function drawOddsChart(s) {
    if (s.game !== "one-handed") return;
    const odds = page.odds;
    const t = s.dealtAt[s.index];
    const svg = $("odds-chart");
    if (!page.oddsDone) { svg.replaceChildren(); return; }
    const f = chartFrame(svg);
    const n = s.deck.size;
    const positive = [];
    for (const o of odds) {
      if (o.p > 0) positive.push(o.p);
      if (o.ci95 && o.ci95[0] > 0) positive.push(o.ci95[0]);
    }
    const lo = Math.max(-8, Math.floor(Math.log10(Math.min(0.01, ...positive))));
    const floorY = f.y0 - 3; // where a probability of 0 is drawn, below the lowest decade
    const X = (i) => f.x0 + (i / n) * (f.x1 - f.x0);
    const Y = (p) => (p <= 0 ? floorY : f.y1 + (-Math.log10(Math.min(1, p)) / -lo) * (floorY - 20 - f.y1));
    const ticks = [[floorY, "0"]];
    const decade = (e) => (e >= -2 ? `${10 ** (e + 2)}%` : `${(10 ** (e + 2)).toFixed(-(e + 2))}%`);
    for (let e = 0; e >= lo; e -= lo < -4 ? 2 : 1) ticks.push([Y(10 ** e), decade(e)]);
    axes(svg, f, n, ticks, X);
    let band = "", back = "";
    odds.forEach((o, i) => {
      if (!o.ci95) return;
      band += `${band ? "L" : "M"}${X(i).toFixed(1)},${Y(o.ci95[1]).toFixed(1)}`;
      back = `L${X(i).toFixed(1)},${Y(o.ci95[0]).toFixed(1)}` + back;
    });
    if (band) svg.append(svgEl("path", { class: "band", d: band + back + "Z" }));
    let d = "";
    odds.forEach((o, i) => { d += `${i ? "L" : "M"}${X(i).toFixed(1)},${Y(o.p).toFixed(1)}`; });
    svg.append(svgEl("path", { class: "line", d }));
    odds.forEach((o, i) => {
      svg.append(svgEl("circle", { class: o.method === "exact" ? "dot-exact" : "dot-sim", cx: X(i), cy: Y(o.p), r: 2.6 }));
    });
    svg.append(svgEl("line", { class: "cursor", x1: X(t), x2: X(t), y1: f.y1, y2: f.y0 }));
    const o = odds[t];
    const now = $("odds-now");
    now.replaceChildren();
    const left = n - t;
    const head = `After ${t} of ${n} cards: chance of winning `;
    if (o.method === "exact") {
      const frac = o.fraction.includes("/") ? `${o.fraction} ≈ ${pct(o.p, 4)}` : o.fraction === "1" ? "1 (certain)" : "0 (lost whatever comes)";
      now.append(head, el("strong", { text: frac }),
        ` (exact: ${left ? `every one of the ${fmtInt(o.total)} orders of the ${left} card${left === 1 ? "" : "s"} to come` : "the game is over"}).`);
    } else {
      now.append(head, el("strong", { text: `≈ ${pct(o.p, 3)}` }),
        ` [${pct(o.ci95[0], 3)}, ${pct(o.ci95[1], 3)}] (simulated: ${fmtInt(o.total)} random orders of the ${left} cards to come).`);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // stored figures and the command line

  function renderFigures(game, variant, deck) {
    const body = $("figures-body");
    body.replaceChildren();
    if (!FIGURES) { body.append(el("p", { class: "muted", text: "The stored figures (figures.js) did not load." })); return; }
    const name = variant ? String(variant) : `${game}()`;
    const title = R.GAME_NAMES.includes(game) ? R.getGame(game).title : game;
    body.append(el("h3", { text: `${title}, standard deck (52 cards)` }));
    const run = FIGURES.standard[name];
    if (run) {
      const unit = game === "hand" ? "runs" : "games";
      body.append(el("p", {}, el("span", { class: "big", text: pct(run.p_win, run.p_win < 0.01 ? 4 : 2) }),
        ` of ${fmtInt(run.games)} ${unit} won`));
      body.append(el("p", { class: "muted", text: `95% interval [${pct(run.ci95[0], 5)}, ${pct(run.ci95[1], 5)}]`
        + (run.cap ? `, within ${fmtInt(run.cap)} iterations` : "") + `; seed ${run.seed}, computed ${run.date} (${run.name}).` }));
      if (game === "one-handed" && name === "one-handed(win=end,reverse=off,first4=kept)") {
        const inside = run.ci95[0] <= SQRT_HALF_PERCENT && SQRT_HALF_PERCENT <= run.ci95[1];
        body.append(el("p", { text: `Is it 1/√2 % = ${pct(SQRT_HALF_PERCENT, 5)}? That value lies ${inside ? "inside" : "outside"} this interval.` }));
      }
    } else if (variant) {
      body.append(el("p", { class: "muted", text: `No stored run of ${name} on the standard deck; the command below simulates it.` }));
    }
    if (game === "prisoners" && variant) {
      const best = FIGURES.best_play[name];
      if (best) {
        body.append(el("p", { text: `With best play (any legal moves, not the fixed policy): ${fmtInt(best.won)} won, `
          + `${fmtInt(best.lost)} lost, ${fmtInt(best.undecided)} undecided of ${fmtInt(best.decks)} random decks: `
          + `between ${pct(best.ci95[0], 1)} and ${pct(best.ci95[1], 1)} of deals are winnable (${best.date}).` }));
      }
    }
    if (game === "one-handed" && variant) {
      const key = String(R.Variant.make("one-handed", { ...variant.values, first4: "kept" }));
      const table = FIGURES.exact[key] || FIGURES.exact[name];
      if (table) renderExactTable(body, table, deck, variant);
      else body.append(el("p", { class: "muted", text: "No exact small-deck values are stored for this variant." }));
    }
    body.append(el("p", { class: "muted small-text", text: `From the toolkit's results store (${FIGURES.store}).` }));
  }

  function renderExactTable(body, table, deck, variant) {
    body.append(el("h3", { text: "Exact chance of winning, small decks" }));
    const here = deck ? table[`${deck.suits}x${deck.ranks}`] : null;
    if (here) {
      body.append(el("p", {}, `This deck (${deck.suits}×${deck.ranks}): `,
        el("strong", { text: pct(here.value, 4) }), here.p_win ? ` = ${here.p_win}` : "", " of all orders."));
    }
    if (variant.rules.first4Reversed) body.append(el("p", { class: "muted", text: "first4=reversed has exactly the distribution of first4=kept." }));
    const suits = [2, 3, 4, 5, 6], ranks = [2, 3, 4, 5, 6, 7, 8];
    const t = el("table", { class: "exact" });
    const head = el("tr", {}, el("th", { text: "suits \\ ranks" }));
    for (const r of ranks) head.append(el("th", { text: String(r) }));
    t.append(head);
    for (const s of suits) {
      const tr = el("tr", {}, el("th", { text: String(s) }));
      for (const r of ranks) {
        const v = table[`${s}x${r}`];
        const cur = deck && deck.suits === s && deck.ranks === r;
        tr.append(el("td", { class: cur ? "current" : "", title: v && v.p_win ? v.p_win : "",
          text: v ? (v.value === 0 ? "0" : `${(100 * v.value).toFixed(v.value < 0.1 ? 2 : 1)}`) : "" }));
      }
      t.append(tr);
    }
    body.append(el("p", { class: "muted small-text", text: "Percent of all deck orders won (blank: not computed; odd×odd decks are never won under win=end)." }), t);
  }

  function shellQuote(text) { return `"${text}"`; }

  function renderCommands(s) {
    const box = $("commands");
    if (!s) { box.textContent = "solitaire play --help"; return; }
    const variantArgs = s.variant.queryString().split(",").filter((x) => x).map((kv) => ` --variant ${kv}`).join("");
    const shape = s.deck.suits === 4 && s.deck.ranks === 13 ? "" : ` --suits ${s.deck.suits} --ranks ${s.deck.ranks}`;
    const order = shellQuote(R.formatCards(s.order, s.deck));
    const lines = [];
    // a seed alone deals the same deck (and, in Hand Solitaire, draws the same leftover shuffles)
    const deal = s.shuffled ? ` --seed ${s.seed}` : ` --order ${order}` + (s.game === "hand" ? ` --seed ${s.seed}` : "");
    lines.push(`# this game, step by step (add --figure game.png to draw it)`);
    lines.push(`solitaire play --game ${s.game}${shape}${variantArgs}${deal}`);
    if (s.game === "one-handed") {
      lines.push("", "# the chance of winning after each card (exact from 13 cards to come)");
      lines.push(`solitaire odds --each ${order}${shape}${variantArgs}`);
    }
    if (s.game === "prisoners") {
      const moves = ` --variant moves=${s.variant.values.moves}` + (s.variant.values.wrap !== "on" ? " --variant wrap=off" : "");
      lines.push("", "# whether best play (any legal moves) wins this deal, with a winning line");
      lines.push(`solitaire solve --order ${order}${shape}${moves}`);
    }
    lines.push("", "# how often the game is won on this deck");
    lines.push(`solitaire simulate --game ${s.game}${shape}${variantArgs} --games 10000000`);
    if (s.game !== "hand" && s.deck.size <= 20) {
      lines.push(`solitaire exact --game ${s.game}${shape}${variantArgs}`);
    }
    box.textContent = lines.join("\n");
  }

  // ---------------------------------------------------------------------------------------------
  // controls

  let runTimer = null;
  function stopRunning() {
    clearInterval(runTimer);
    runTimer = null;
    $("run").textContent = "▶ play";
  }
  function toggleRunning() {
    const s = page.state;
    if (!s) return;
    if (runTimer) { stopRunning(); return; }
    if (s.index >= s.trace.steps.length) show(0);
    $("run").textContent = "❚❚ pause";
    const delay = s.trace.steps.length > 600 ? 40 : s.trace.steps.length > 200 ? 120 : 300;
    runTimer = setInterval(() => {
      if (!page.state || page.state.index >= page.state.trace.steps.length) { stopRunning(); return; }
      show(page.state.index + 1);
    }, delay);
  }

  function wire() {
    $("first").addEventListener("click", () => { stopRunning(); show(0); });
    $("back").addEventListener("click", () => { stopRunning(); show(page.state.index - 1); });
    $("forward").addEventListener("click", () => { stopRunning(); show(page.state.index + 1); });
    $("last").addEventListener("click", () => { stopRunning(); show(page.state.trace.steps.length); });
    $("run").addEventListener("click", toggleRunning);
    $("slider").addEventListener("input", () => { stopRunning(); show(Number($("slider").value)); });
    document.addEventListener("keydown", (ev) => {
      if (!page.state || ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName)) return;
      const moves = { ArrowRight: 1, ArrowLeft: -1 };
      if (ev.key in moves) { stopRunning(); show(page.state.index + moves[ev.key]); ev.preventDefault(); }
      else if (ev.key === "Home") { stopRunning(); show(0); }
      else if (ev.key === "End") { stopRunning(); show(page.state.trace.steps.length); }
      else if (ev.key === " ") { toggleRunning(); ev.preventDefault(); }
    });
    $("game").addEventListener("change", () => fillVariantFields($("game").value, null));
    for (const id of ["suits", "ranks"]) $(id).addEventListener("input", checkDeckInput);
    $("standard").addEventListener("click", () => { $("suits").value = "4"; $("ranks").value = "13"; checkDeckInput(); });
    $("deck").addEventListener("input", checkDeckInput);
    $("clear").addEventListener("click", () => { $("deck").value = ""; checkDeckInput(); $("deck").focus(); });
    $("setup").addEventListener("submit", (ev) => { ev.preventDefault(); go(formQuery()); });
    $("shuffle").addEventListener("click", () => {
      go({ game: $("game").value, variant: formVariant(), suits: $("suits").value, ranks: $("ranks").value,
        deckText: null, seed: String(R.newSeed()) });
    });
    window.addEventListener("popstate", load);
    window.addEventListener("resize", () => { if (page.state) show(page.state.index); });
  }

  wire();
  load();
})();
