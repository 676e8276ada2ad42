/* The three games' rules for the page, written once in JavaScript.
 *
 * A port of the toolkit's Python reference (sim/cards.py, sim/games.py, sim/variant.py,
 * sim/rules/*.py, sim/trace.py): the same card notation and refusals, the same step-by-step
 * events, and the same random numbers for a seed:
 *   - a deal shuffled from a seed is numpy's default_rng(seed).permutation(S*R) (SeedSequence,
 *     PCG64, Generator.shuffle), as `solitaire play --seed N` deals it;
 *   - Hand Solitaire's leftover shuffles are Python's random.Random(seed).shuffle (Mersenne
 *     Twister), as sim.trace.play shuffles them.
 * So a deal and a seed play here exactly the game the command line plays. The conformance test
 * (tests/browser/test_conformance.py) replays every golden trace of tests/browser/golden_traces.json
 * (scripts/make_golden_traces.py, made by sim.trace) with these functions, step for step.
 *
 * Plain ES2020, no dependencies; loads in a page (global SolitaireRules) or in node (require).
 */
(function (root) {
  "use strict";

  // ---------------------------------------------------------------------------------------------
  // errors: a user mistake is one line (sim.errors.UsageError)
  class UsageError extends Error {
    constructor(message) { super(message); this.name = "UsageError"; }
  }

  /** Python's repr() of a string (enough for card tokens and option values). */
  function pyRepr(text) {
    const s = String(text);
    const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
    let out = "";
    for (const ch of s) {
      if (ch === "\\") out += "\\\\";
      else if (ch === quote) out += "\\" + ch;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\t") out += "\\t";
      else if (ch === "\r") out += "\\r";
      else out += ch;
    }
    return quote + out + quote;
  }

  // ---------------------------------------------------------------------------------------------
  // games and variants (sim/games.py, sim/variant.py)
  const GAMES = {
    "one-handed": {
      title: "One-Handed Solitaire", scoreUnit: "cards left", winScore: 0,
      params: [
        { name: "win", values: ["end", "any"],
          help: "end: won when the row is empty after the last card; any: also when it empties mid-deal" },
        { name: "reverse", values: ["off", "on"], help: "on: same suit removes all four, same rank the two between" },
        { name: "first4", values: ["kept", "reversed"],
          help: "reversed: the first four cards are held in the opposite orientation (some published code)" },
        { name: "final", values: ["cascade", "once"], implicit: true,
          help: "cascade: after the last card, check again until nothing matches; once: a single check after the last card" },
      ],
    },
    hand: {
      title: "Hand Solitaire", scoreUnit: "cards left", winScore: 0,
      params: [
        { name: "step7", values: ["on", "off"], help: "off: no rotation phase after the deal" },
        { name: "rank_resets", values: ["written", "published"],
          help: "published: a rank match in the rotation phase does not reset the count of 3 (published code)" },
        { name: "reshuffle", values: ["on", "off"], help: "off: the leftovers follow the discards unshuffled" },
      ],
    },
    prisoners: {
      title: "Prisoner's Patience", scoreUnit: "piles left", winScore: 1,
      params: [
        { name: "moves", values: ["published", "physical"],
          help: "published: piles moved card by card (reversed), as the published simulator; physical: a pile moves as a unit" },
        { name: "wrap", values: ["on", "off"], help: "on: ace and king are adjacent" },
      ],
    },
  };
  const GAME_NAMES = Object.keys(GAMES);

  function getGame(name) {
    if (!Object.prototype.hasOwnProperty.call(GAMES, name)) {
      throw new UsageError(`unknown game ${pyRepr(name)}: choose one of ${GAME_NAMES.join(", ")}`);
    }
    return GAMES[name];
  }

  function gameParam(game, key) {
    const record = getGame(game);
    const param = record.params.find((p) => p.name === key);
    if (!param) {
      throw new UsageError(`unknown variant key ${pyRepr(key)} for ${game}: valid keys are `
        + record.params.map((p) => p.name).join(", "));
    }
    return param;
  }

  class Variant {
    constructor(game, values) {
      this.game = game;
      this.values = values; // every parameter, canonical order
      const v = values;
      if (game === "one-handed") {
        this.rules = { winAny: v.win === "any", reverse: v.reverse === "on",
          first4Reversed: v.first4 === "reversed", finalOnce: v.final === "once" };
      } else if (game === "hand") {
        this.rules = { step7: v.step7 === "on", rankResets: v.rank_resets === "written", reshuffle: v.reshuffle === "on" };
      } else {
        this.rules = { reversePiles: v.moves === "published", wrap: v.wrap === "on" };
      }
    }

    /** Variant.make: every key checked, the others at their default. */
    static make(game, given = {}) {
      const record = getGame(game);
      for (const [key, value] of Object.entries(given)) {
        const param = gameParam(game, key);
        if (!param.values.includes(value)) {
          throw new UsageError(`invalid value ${pyRepr(value)} for variant key ${pyRepr(key)}: choose one of `
            + param.values.join(", "));
        }
      }
      const values = {};
      for (const param of record.params) values[param.name] = given[param.name] ?? param.values[0];
      return new Variant(game, values);
    }

    /** Variant.from_options: KEY=VALUE strings (the command line's repeatable --variant). */
    static fromOptions(game, options) {
      const values = {};
      for (const option of options) {
        const at = option.indexOf("=");
        const key = at < 0 ? option.trim() : option.slice(0, at).trim();
        const value = at < 0 ? "" : option.slice(at + 1).trim();
        if (at < 0 || !key || !value) {
          throw new UsageError(`variant ${pyRepr(option)} is not of the form KEY=VALUE (e.g. win=any)`);
        }
        if (Object.prototype.hasOwnProperty.call(values, key) && values[key] !== value) {
          throw new UsageError(`variant key ${pyRepr(key)} given twice with different values`);
        }
        values[key] = value;
      }
      return Variant.make(game, values);
    }

    /** The URL's form: "win=any,reverse=on" (empty: the rules as written). */
    static fromQuery(game, text) {
      const options = String(text || "").split(",").filter((part) => part.trim());
      return Variant.fromOptions(game, options);
    }

    /** A canonical string such as one-handed(win=any,reverse=off). */
    static parse(text) {
      const match = /^\s*([a-z-]+)\s*(?:\((.*)\))?\s*$/.exec(text);
      if (!match) throw new UsageError(`cannot read variant ${pyRepr(text)}: expected e.g. one-handed(win=any,reverse=off)`);
      return Variant.fromQuery(match[1], match[2] || "");
    }

    /** The canonical string (an implicit parameter at its default left out), as str(Variant). */
    toString() {
      const shown = getGame(this.game).params
        .filter((p) => !(p.implicit && this.values[p.name] === p.values[0]))
        .map((p) => `${p.name}=${this.values[p.name]}`);
      return `${this.game}(${shown.join(",")})`;
    }

    /** Only the keys away from their default, as the URL writes them. */
    queryString() {
      return getGame(this.game).params.filter((p) => this.values[p.name] !== p.values[0])
        .map((p) => `${p.name}=${this.values[p.name]}`).join(",");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // decks and card notation (sim/deck.py, sim/cards.py)
  function positiveInt(name, value, hint) {
    let number = value;
    if (typeof value === "string") {
      if (!/^\s*[+-]?\d+\s*$/.test(value)) throw new UsageError(`${name} must be a positive integer, got ${pyRepr(value)}`);
      number = parseInt(value, 10);
    }
    if (typeof number !== "number" || !Number.isInteger(number)) {
      throw new UsageError(`${name} must be a positive integer, got ${String(value)}`);
    }
    if (number < 1) throw new UsageError(`${name} must be at least 1, got ${number}` + (hint ? `: ${hint}` : ""));
    return number;
  }

  /** The most cards the page plays (a deck of more would be slow to draw; the command line takes any). */
  const MAX_PAGE_CARDS = 400;

  class Deck {
    constructor(suits = 4, ranks = 13) {
      const hint = "a deck needs at least one suit and one rank";
      this.suits = positiveInt("suits", suits, hint);
      this.ranks = positiveInt("ranks", ranks, hint);
      this.size = this.suits * this.ranks;
      if (this.size > MAX_PAGE_CARDS) {
        throw new UsageError(`the deck ${this} has ${this.size} cards: this page plays decks of up to `
          + `${MAX_PAGE_CARDS} cards (the command line takes any deck)`);
      }
    }
    suit(card) { return Math.floor(card / this.ranks); }
    rank(card) { return card % this.ranks; }
    toString() { return `${this.suits}x${this.ranks}`; }
  }

  const SUIT_LETTERS = "SHDC";
  const SUIT_SYMBOLS = "♠♥♦♣";
  const RANK_NAMES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const RANK_ALIASES = { A: 1, T: 10, J: 11, Q: 12, K: 13 };
  const SUIT_OF = {};
  for (let i = 0; i < 4; i++) { SUIT_OF[SUIT_LETTERS[i]] = i; SUIT_OF[SUIT_SYMBOLS[i]] = i; }
  const HINT = "write a rank (A 2 ... 10 J Q K, or T for 10) then a suit (S H D C or ♠ ♥ ♦ ♣), e.g. 10H, or r<rank>s<suit>";

  function standardNames(deck) { return deck.ranks <= RANK_NAMES.length && deck.suits <= SUIT_LETTERS.length; }

  function cardName(card, deck, symbols = false) {
    const suit = deck.suit(card), rank = deck.rank(card);
    if (!standardNames(deck)) return `r${rank + 1}s${suit + 1}`;
    return RANK_NAMES[rank] + (symbols ? SUIT_SYMBOLS : SUIT_LETTERS)[suit];
  }

  function formatCards(cards, deck, symbols = false, sep = " ") {
    return Array.from(cards, (c) => cardName(c, deck, symbols)).join(sep);
  }

  function readToken(token, deck) {
    if (/^[0-9]+$/.test(token)) {
      const number = Number(token);
      if (number >= deck.size) {
        return [null, `card number ${BigInt(token)} is outside the deck ${deck} (card numbers 0..${deck.size - 1})`];
      }
      return [number, null];
    }
    const upper = token.toUpperCase();
    const fantasy = /^R(\d+)S(\d+)$/.exec(upper);
    let rank, suit;
    if (fantasy) {
      rank = Number(fantasy[1]); suit = Number(fantasy[2]);
    } else {
      const chars = Array.from(upper);
      const last = chars[chars.length - 1];
      if (chars.length < 2 || !(last in SUIT_OF)) return [null, `not a card: ${HINT}`];
      suit = SUIT_OF[last] + 1;
      const rankText = chars.slice(0, -1).join("");
      if (rankText in RANK_ALIASES) rank = RANK_ALIASES[rankText];
      else if (/^[0-9]+$/.test(rankText) && !rankText.startsWith("0")) rank = Number(rankText);
      else return [null, `not a card: ${HINT}`];
    }
    if (rank < 1 || suit < 1) return [null, "ranks and suits are counted from 1 (r1s1 is the ace of the first suit)"];
    if (rank > deck.ranks || suit > deck.suits) {
      return [null, `not in the deck ${deck} (${deck.suits} suits, ranks 1..${deck.ranks}`
        + (deck.size > 1 ? `: ${formatCards([0], deck)} .. ${formatCards([deck.size - 1], deck)}` : "") + ")"];
    }
    return [(suit - 1) * deck.ranks + (rank - 1), null];
  }

  /** sim.cards.parse_cards: card numbers, or one line naming the bad card and its position. */
  function parseCards(text, deck, { complete = true, what = "order" } = {}) {
    const tokens = String(text).trim().split(/[\s,]+/).filter((t) => t);
    const cards = [];
    const seen = new Map();
    tokens.forEach((token, index) => {
      const position = index + 1;
      const [card, reason] = readToken(token, deck);
      if (card === null) throw new UsageError(`${what}, card ${position} ${pyRepr(token)}: ${reason}`);
      if (seen.has(card)) {
        throw new UsageError(`${what}, card ${position} ${pyRepr(token)}: ${cardName(card, deck)} was already given `
          + `as card ${seen.get(card)}; each card appears once`);
      }
      seen.set(card, position);
      cards.push(card);
    });
    if (complete && cards.length !== deck.size) {
      const missing = [];
      for (let c = 0; c < deck.size; c++) if (!seen.has(c)) missing.push(c);
      const shown = formatCards(missing.slice(0, 5), deck) + (missing.length > 5 ? " ..." : "");
      throw new UsageError(`${what} has ${cards.length} cards but the deck ${deck} has ${deck.size}: `
        + `missing ${missing.length} (${shown}); give every card once`);
    }
    return cards;
  }

  /** sim.checks.check_seed for text from a URL or a form: a non-negative integer, as a BigInt. */
  function parseSeed(text) {
    const s = String(text).trim();
    if (!/^[0-9]+$/.test(s)) throw new UsageError(`seed must be a non-negative integer, got ${pyRepr(s)}`);
    return BigInt(s);
  }

  /** A fresh seed below 2^53, as sim.rng.new_seed draws them. */
  function newSeed() {
    const words = new Uint32Array(2);
    if (root.crypto && root.crypto.getRandomValues) root.crypto.getRandomValues(words);
    else { words[0] = Math.random() * 2 ** 32; words[1] = Math.random() * 2 ** 32; }
    return (BigInt(words[1] & 0x1fffff) << 32n) | BigInt(words[0]);
  }

  // ---------------------------------------------------------------------------------------------
  // random numbers: the command line's, bit for bit

  const M32 = 0xffffffffn;
  function uint32Words(seed) { // little-endian 32-bit words of a non-negative BigInt (0 -> [0])
    const words = [];
    let n = BigInt(seed);
    if (n === 0n) words.push(0);
    while (n > 0n) { words.push(Number(n & M32)); n >>= 32n; }
    return words;
  }

  /** Python's random.Random(seed): MT19937 seeded by init_by_array, shuffle by getrandbits. */
  class PythonRandom {
    constructor(seed) {
      const N = 624;
      this.mt = new Uint32Array(N);
      this.index = N;
      const mt = this.mt;
      mt[0] = 19650218;
      for (let i = 1; i < N; i++) mt[i] = (Math.imul(1812433253, mt[i - 1] ^ (mt[i - 1] >>> 30)) + i) >>> 0;
      const key = uint32Words(seed);
      let i = 1, j = 0;
      for (let k = Math.max(N, key.length); k; k--) {
        mt[i] = ((mt[i] ^ Math.imul(mt[i - 1] ^ (mt[i - 1] >>> 30), 1664525)) + key[j] + j) >>> 0;
        i++; j++;
        if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
        if (j >= key.length) j = 0;
      }
      for (let k = N - 1; k; k--) {
        mt[i] = ((mt[i] ^ Math.imul(mt[i - 1] ^ (mt[i - 1] >>> 30), 1566083941)) - i) >>> 0;
        i++;
        if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
      }
      mt[0] = 0x80000000;
    }
    uint32() {
      const mt = this.mt, N = 624, M = 397;
      if (this.index >= N) {
        for (let k = 0; k < N; k++) {
          const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
          mt[k] = mt[(k + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
        }
        this.index = 0;
      }
      let y = mt[this.index++];
      y ^= y >>> 11;
      y ^= (y << 7) & 0x9d2c5680;
      y ^= (y << 15) & 0xefc60000;
      y ^= y >>> 18;
      return y >>> 0;
    }
    randbelow(n) { // random._randbelow_with_getrandbits, n < 2^32
      const k = 32 - Math.clz32(n);
      let r = this.uint32() >>> (32 - k);
      while (r >= n) r = this.uint32() >>> (32 - k);
      return r;
    }
    shuffle(list) { // random.shuffle
      for (let i = list.length - 1; i > 0; i--) {
        const j = this.randbelow(i + 1);
        [list[i], list[j]] = [list[j], list[i]];
      }
      return list;
    }
  }

  /** numpy's SeedSequence(seed).generate_state(words, uint32). */
  function seedSequenceState(seed, nWords) {
    const INIT_A = 0x43b0d7e5, MULT_A = 0x931e8875, INIT_B = 0x8b51f9dd, MULT_B = 0x58f38ded;
    const MIX_L = 0xca01f9dd, MIX_R = 0x4973f715;
    const entropy = uint32Words(seed);
    let hashConst = INIT_A;
    const hashmix = (value) => {
      let v = (value ^ hashConst) >>> 0;
      hashConst = Math.imul(hashConst, MULT_A) >>> 0;
      v = Math.imul(v, hashConst) >>> 0;
      return (v ^ (v >>> 16)) >>> 0;
    };
    const mix = (x, y) => {
      const r = (Math.imul(MIX_L, x) - Math.imul(MIX_R, y)) >>> 0;
      return (r ^ (r >>> 16)) >>> 0;
    };
    const pool = [0, 0, 0, 0];
    for (let i = 0; i < 4; i++) pool[i] = hashmix(i < entropy.length ? entropy[i] : 0);
    for (let src = 0; src < 4; src++) {
      for (let dst = 0; dst < 4; dst++) if (src !== dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
    }
    for (let src = 4; src < entropy.length; src++) {
      for (let dst = 0; dst < 4; dst++) pool[dst] = mix(pool[dst], hashmix(entropy[src]));
    }
    let hc = INIT_B;
    const out = [];
    for (let i = 0; i < nWords; i++) {
      let v = (pool[i % 4] ^ hc) >>> 0;
      hc = Math.imul(hc, MULT_B) >>> 0;
      v = Math.imul(v, hc) >>> 0;
      out.push((v ^ (v >>> 16)) >>> 0);
    }
    return out;
  }

  const M64 = (1n << 64n) - 1n, M128 = (1n << 128n) - 1n;
  const PCG_MULT = (2549297995355413924n << 64n) + 4865540595714422341n;

  /** numpy's PCG64 (XSL-RR) seeded as default_rng(seed) seeds it. */
  class NumpyPCG64 {
    constructor(seed) {
      const w = seedSequenceState(seed, 8).map(BigInt);
      const v = [0, 1, 2, 3].map((k) => w[2 * k] | (w[2 * k + 1] << 32n));
      const initState = (v[0] << 64n) | v[1], initSeq = (v[2] << 64n) | v[3];
      this.inc = ((initSeq << 1n) | 1n) & M128;
      this.state = 0n;
      this.step();
      this.state = (this.state + initState) & M128;
      this.step();
      this.hasUint32 = false;
      this.uinteger = 0;
    }
    step() { this.state = (this.state * PCG_MULT + this.inc) & M128; }
    next64() {
      this.step();
      const s = this.state;
      const value = ((s >> 64n) ^ s) & M64, rot = s >> 122n;
      return ((value >> rot) | (value << ((64n - rot) & 63n))) & M64;
    }
    next32() {
      if (this.hasUint32) { this.hasUint32 = false; return this.uinteger; }
      const next = this.next64();
      this.hasUint32 = true;
      this.uinteger = Number(next >> 32n);
      return Number(next & M32);
    }
    interval(max) { // numpy's random_interval, max < 2^32
      if (max === 0) return 0;
      let mask = max;
      mask |= mask >>> 1; mask |= mask >>> 2; mask |= mask >>> 4; mask |= mask >>> 8; mask |= mask >>> 16;
      mask >>>= 0;
      let value;
      while ((value = (this.next32() & mask) >>> 0) > max);
      return value;
    }
  }

  /** numpy.random.default_rng(seed).permutation(n): the deal `solitaire play --seed` plays. */
  function seededOrder(seed, size) {
    const rng = new NumpyPCG64(seed);
    const order = Array.from({ length: size }, (_, i) => i);
    for (let i = size - 1; i > 0; i--) {
      const j = rng.interval(i);
      [order[i], order[j]] = [order[j], order[i]];
    }
    return order;
  }

  // ---------------------------------------------------------------------------------------------
  // One-Handed Solitaire (sim/rules/one_handed.py, sim/trace.py)

  const NO_REMOVAL = 0, REMOVE_BETWEEN = 2, REMOVE_FOUR = 4;
  /** The rule: what comparing the last card with the 4th from the end removes. */
  function removal(sameSuit, sameRank, reverse) {
    if (reverse) [sameSuit, sameRank] = [sameRank, sameSuit];
    if (sameSuit) return REMOVE_BETWEEN;
    if (sameRank) return REMOVE_FOUR;
    return NO_REMOVAL;
  }

  function dealingOrder(order, variant) {
    const cards = Array.from(order);
    if (variant.rules.first4Reversed) {
      const head = cards.slice(0, 4).reverse();
      cards.splice(0, head.length, ...head);
    }
    return cards;
  }

  function playOneHanded(order, deck, variant) {
    const reverse = variant.rules.reverse;
    const row = [];
    const steps = [];
    let emptied = false;
    const cards = dealingOrder(order, variant);
    cards.forEach((card, i) => {
      row.push(card);
      steps.push({ event: "deal", card, row: row.slice() });
      const once = variant.rules.finalOnce && i === cards.length - 1;
      while (row.length >= 4) {
        const a = row[row.length - 1], b = row[row.length - 4];
        const sameSuit = deck.suit(a) === deck.suit(b);
        const what = removal(sameSuit, deck.rank(a) === deck.rank(b), reverse);
        let removed;
        if (what === REMOVE_BETWEEN) removed = row.splice(row.length - 3, 2);
        else if (what === REMOVE_FOUR) removed = row.splice(row.length - 4, 4);
        else break;
        steps.push({ event: "remove", match: sameSuit ? "suit" : "rank", top: a, fourth: b, removed,
          row: row.slice() });
        emptied = emptied || row.length === 0;
        if (once) break;
      }
    });
    const score = row.length;
    return { game: "one-handed", deck, variant, order: Array.from(order), steps, score,
      won: score === 0 || (variant.rules.winAny && emptied), extra: {} };
  }

  // ---------------------------------------------------------------------------------------------
  // Hand Solitaire (sim/rules/hand.py, sim/trace.py)

  const ROTATIONS_TO_STOP = 3;
  const DEFAULT_CAP = 100;

  function handSettle(stack, steps, deck) {
    let anyDiscard = false, anySuit = false;
    while (stack.length >= 4) {
      const a = stack[stack.length - 1], b = stack[stack.length - 4];
      let removed, match;
      if (deck.rank(a) === deck.rank(b)) { removed = stack.splice(stack.length - 4, 4); match = "rank"; }
      else if (deck.suit(a) === deck.suit(b)) { removed = stack.splice(stack.length - 3, 2); match = "suit"; anySuit = true; }
      else break;
      anyDiscard = true;
      steps.push({ event: "discard", match, top: a, fourth: b, removed, stack: stack.slice() });
    }
    return [anyDiscard, anySuit];
  }

  function handIteration(order, deck, variant, steps) {
    const stack = [];
    const from = steps.length;
    for (const card of order) {
      stack.push(card);
      steps.push({ event: "deal", card, stack: stack.slice() });
      handSettle(stack, steps, deck);
    }
    if (variant.rules.step7) {
      let quiet = 0;
      while (quiet < ROTATIONS_TO_STOP) {
        if (stack.length) {
          stack.push(stack.shift());
          steps.push({ event: "rotate", card: stack[stack.length - 1], stack: stack.slice() });
        }
        quiet += 1;
        const [anyDiscard, anySuit] = handSettle(stack, steps, deck);
        if (anySuit || (variant.rules.rankResets && anyDiscard)) quiet = 0;
      }
    }
    const discards = [];
    for (const e of steps.slice(from)) if (e.event === "discard") discards.push(...e.removed);
    return { discards, leftovers: stack.slice() };
  }

  /** seed: a BigInt (Python's random.Random(seed) shuffles the leftovers); cap: iterations at most. */
  function playHand(order, deck, variant, { seed = 0n, cap = DEFAULT_CAP } = {}) {
    const rng = new PythonRandom(seed);
    const steps = [];
    let current = Array.from(order);
    const used = [];
    for (let number = 1; number <= cap; number++) {
      steps.push({ event: "iteration", iteration: number, order: current });
      const it = handIteration(current, deck, variant, steps);
      const won = it.leftovers.length === 0;
      const end = { event: "end", iteration: number, discards: it.discards, leftovers: it.leftovers, won };
      steps.push(end);
      if (won || number === cap) break;
      const prefix = it.discards.slice().reverse();
      let rest;
      if (!variant.rules.reshuffle) rest = it.leftovers.slice().reverse();
      else rest = rng.shuffle(it.leftovers.slice());
      used.push(rest);
      end.next_order = prefix.concat(rest);
      current = end.next_order;
    }
    const last = steps[steps.length - 1];
    return { game: "hand", deck, variant, order: Array.from(order), steps, score: last.leftovers.length,
      won: last.won, extra: { iterations: last.iteration, choices: used } };
  }

  // ---------------------------------------------------------------------------------------------
  // Prisoner's Patience (sim/rules/prisoners.py, sim/trace.py)

  const DISTANCES = [1, 3];

  function adjacentRanks(a, b, ranks, wrap) {
    const gap = Math.abs(a - b);
    return gap === 1 || (wrap && ranks >= 3 && gap === ranks - 1);
  }

  function playPrisoners(order, deck, variant) {
    const { wrap, reversePiles } = variant.rules;
    let piles = [];
    const steps = [];
    const snapshot = () => piles.filter((p) => p.length).map((p) => p.slice());
    const canLand = (s, t) => adjacentRanks(deck.rank(piles[s][piles[s].length - 1]),
      deck.rank(piles[t][piles[t].length - 1]), deck.ranks, wrap);
    for (const card of order) {
      piles.push([card]);
      steps.push({ event: "deal", card, piles: snapshot() });
      for (;;) { // the published policy: passes until one makes no move
        piles = piles.filter((p) => p.length);
        if (piles.length === 1) break;
        let moved = false;
        for (let i = piles.length - 1; i > 0; i--) {
          let target = null;
          for (const d of DISTANCES) if (i - d >= 0 && canLand(i, i - d)) { target = i - d; break; }
          if (target === null) continue;
          const source = piles[i];
          const top = source[source.length - 1], onto = piles[target][piles[target].length - 1], size = source.length;
          if (reversePiles) while (source.length) piles[target].push(source.pop());
          else { piles[target].push(...source); source.length = 0; }
          steps.push({ event: "move", card: top, onto, distance: i - target,
            moved: piles[target].slice(piles[target].length - size), piles: snapshot() });
          moved = true;
        }
        if (!moved) break;
      }
    }
    return { game: "prisoners", deck, variant, order: Array.from(order), steps, score: piles.length,
      won: piles.length === 1, extra: {} };
  }

  /** Play one deal; opts.seed (BigInt) seeds Hand Solitaire's leftover shuffles. */
  function play(order, deck, variant, opts = {}) {
    if (variant.game === "one-handed") return playOneHanded(order, deck, variant);
    if (variant.game === "hand") return playHand(order, deck, variant, opts);
    return playPrisoners(order, deck, variant);
  }

  // ---------------------------------------------------------------------------------------------
  // a trace written as the command line writes it (sim.trace.Trace.to_dict and text)

  const CARD_KEYS = ["card", "top", "fourth", "onto"];
  const LIST_KEYS = ["row", "removed", "stack", "order", "discards", "leftovers", "next_order", "moved", "piles"];

  function namesOf(value, deck, symbols = false) {
    if (typeof value === "number") return cardName(value, deck, symbols);
    return value.map((v) => namesOf(v, deck, symbols));
  }

  function traceToDict(trace) {
    const deck = trace.deck;
    const steps = trace.steps.map((e) => {
      const out = {};
      for (const [key, value] of Object.entries(e)) {
        out[key] = CARD_KEYS.includes(key) || LIST_KEYS.includes(key) ? namesOf(value, deck) : value;
      }
      return out;
    });
    const extra = {};
    for (const [key, value] of Object.entries(trace.extra)) extra[key] = key === "choices" ? namesOf(value, deck) : value;
    return { game: trace.game, suits: deck.suits, ranks: deck.ranks, variant: String(trace.variant),
      order: formatCards(trace.order, deck), score: trace.score, won: trace.won, steps, ...extra };
  }

  function places(distance) { return `${distance} place${distance > 1 ? "s" : ""} left`; }

  /** What one event did, in words (the command line's `solitaire play` lines, without the layout). */
  function describe(e, deck) {
    const name = (c) => cardName(c, deck, true);
    const cards = (cs) => (cs.length ? cs.map(name).join(" ") : "(empty)");
    const count = (n) => ({ 2: "two", 4: "four" }[n] || String(n));
    switch (e.event) {
      case "deal": return `deal ${name(e.card)}`;
      case "remove":
      case "discard":
        return `${name(e.top)} matches ${name(e.fourth)} by ${e.match}: remove ${count(e.removed.length)} (${cards(e.removed)})`;
      case "rotate": return `rotate ${name(e.card)} from the bottom to the top`;
      case "iteration": return `iteration ${e.iteration}: deal the deck again`;
      case "end":
        return `end of iteration ${e.iteration}: ${e.won ? "the stack is empty: won" : `${e.leftovers.length} cards left (${cards(e.leftovers)})`}`;
      case "move": return `${name(e.card)} onto ${name(e.onto)} (${places(e.distance)})`;
      default: return e.event;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // One-Handed odds after each card (exact/one_handed/odds.py, in the small)

  /** One-Handed settle on label arrays (suit, rank per card; -1 never matches); returns removals. */
  function settleLabels(rs, rr, reverse, maxRemovals) {
    let removals = 0;
    while (rs.length >= 4 && removals < maxRemovals) {
      const n = rs.length;
      const sameSuit = rs[n - 1] >= 0 && rs[n - 1] === rs[n - 4];
      const sameRank = rr[n - 1] >= 0 && rr[n - 1] === rr[n - 4];
      const what = removal(sameSuit, sameRank, reverse);
      if (what === REMOVE_BETWEEN) { rs.splice(n - 3, 2); rr.splice(n - 3, 2); }
      else if (what === REMOVE_FOUR) { rs.length = n - 4; rr.length = n - 4; }
      else break;
      removals++;
    }
    return removals;
  }

  /** The settled row after `dealt`, and whether a removal emptied it (odds.settled_position). */
  function settledPosition(dealt, deck, variant) {
    const rs = [], rr = [];
    let emptied = false;
    const onceAt = variant.rules.finalOnce ? deck.size - 1 : -1;
    dealingOrder(dealt, variant).forEach((card, i) => {
      rs.push(deck.suit(card)); rr.push(deck.rank(card));
      if (settleLabels(rs, rr, variant.rules.reverse, i === onceAt ? 1 : Infinity) && rs.length === 0) emptied = true;
    });
    return { rs, rr, emptied };
  }

  class OutOfBudget extends Error {}

  function factorial(k) { let f = 1; for (let i = 2; i <= k; i++) f *= i; return f; }
  function gcd(a, b) { while (b) [a, b] = [b, a % b]; return a; }

  /** The largest number of cards left that the exact count takes (k! must stay below 2^53). */
  const MAX_EXACT_LEFT = 18;

  /**
   * An exact counter over the orders of the cards to come, memoised on the settled row and the set
   * of cards to come. A row card's suit (rank) that no card to come shares can never match again (a
   * check compares the card just dealt with the 4th from the end, and a card uncovered again by a
   * removal of four was already checked against the same card below it), so it is written -1, which
   * matches nothing: positions that differ only there share one entry.
   */
  class ExactCounter {
    constructor(deck, variant, deadline) {
      this.deck = deck;
      this.reverse = variant.rules.reverse;
      this.finalOnce = variant.rules.finalOnce;
      this.memo = new Map();
      this.deadline = deadline; // performance.now() value past which counting stops
      this.nodes = 0;
      this.suitLeft = new Int32Array(deck.suits); // cards to come of each suit and rank
      this.rankLeft = new Int32Array(deck.ranks);
      this.buffers = []; // one row buffer per depth
    }

    /** {hist: orders per final score, emptied: orders in which a removal empties the row}. */
    count(rowS, rowR, undealt) {
      this.suitLeft.fill(0); this.rankLeft.fill(0);
      for (const c of undealt) { this.suitLeft[this.deck.suit(c)]++; this.rankLeft[this.deck.rank(c)]++; }
      const cards = undealt.slice().sort((a, b) => a - b);
      return this.counts(Int16Array.from(rowS), Int16Array.from(rowR), rowS.length, cards, 0);
    }

    key(s, r, n, undealt) {
      const codes = new Array(2 * n + 1 + undealt.length);
      let j = 0;
      for (let i = 0; i < n; i++) {
        codes[j++] = this.suitLeft[s[i]] ? s[i] + 1 : 0; // 0: a suit (rank) no card to come has
        codes[j++] = this.rankLeft[r[i]] ? r[i] + 1 : 0;
      }
      codes[j++] = 65535;
      for (const c of undealt) codes[j++] = c;
      return String.fromCharCode.apply(null, codes);
    }

    counts(s, r, n, undealt, depth) {
      const k = undealt.length;
      if (k === 0) {
        const hist = new Array(n + 1).fill(0);
        hist[n] = 1;
        return { hist, emptied: 0 };
      }
      const memoised = k > 2;
      let key;
      if (memoised) {
        key = this.key(s, r, n, undealt);
        const hit = this.memo.get(key);
        if (hit) return hit;
        if ((++this.nodes & 255) === 0 && now() > this.deadline) throw new OutOfBudget();
      }
      if (!this.buffers[depth]) {
        this.buffers[depth] = [new Int16Array(this.deck.size + 1), new Int16Array(this.deck.size + 1)];
      }
      const [bs, br] = this.buffers[depth];
      const hist = [];
      let emptied = 0;
      const rest = factorial(k - 1);
      const deck = this.deck, reverse = this.reverse;
      for (let i = 0; i < k; i++) {
        const card = undealt[i];
        const cs = deck.suit(card), cr = deck.rank(card);
        bs.set(s.subarray(0, n)); br.set(r.subarray(0, n));
        bs[n] = cs; br[n] = cr;
        let m = n + 1, removals = 0;
        const most = this.finalOnce && k === 1 ? 1 : Infinity;
        while (m >= 4 && removals < most) { // settle: only the card just dealt is compared
          const what = removal(bs[m - 1] === bs[m - 4], br[m - 1] === br[m - 4], reverse);
          if (what === REMOVE_BETWEEN) { bs[m - 3] = bs[m - 1]; br[m - 3] = br[m - 1]; m -= 2; }
          else if (what === REMOVE_FOUR) m -= 4;
          else break;
          removals++;
        }
        this.suitLeft[cs]--; this.rankLeft[cr]--;
        const child = this.counts(bs, br, m, undealt.slice(0, i).concat(undealt.slice(i + 1)), depth + 1);
        this.suitLeft[cs]++; this.rankLeft[cr]++;
        const ch = child.hist;
        for (let x = 0; x < ch.length; x++) if (ch[x]) hist[x] = (hist[x] || 0) + ch[x];
        if (removals && m === 0) emptied += rest;
        else emptied += child.emptied;
      }
      for (let i = 0; i < hist.length; i++) hist[i] = hist[i] || 0;
      const result = { hist, emptied };
      if (memoised) this.memo.set(key, result);
      return result;
    }
  }

  function permutationsOf(items, size) {
    if (size === 0) return [[]];
    const out = [];
    items.forEach((x, i) => {
      for (const tail of permutationsOf(items.slice(0, i).concat(items.slice(i + 1)), size - 1)) out.push([x, ...tail]);
    });
    return out;
  }

  /** Exact odds after `dealt`: {wins, total, scoreCounts}; throws OutOfBudget past the deadline. */
  function exactOdds(dealt, deck, variant, counter) {
    const inDealt = new Set(dealt);
    const undealt = [];
    for (let c = 0; c < deck.size; c++) if (!inDealt.has(c)) undealt.push(c);
    if (undealt.length > MAX_EXACT_LEFT) throw new OutOfBudget();
    const total = factorial(undealt.length);
    const scoreCounts = new Array(deck.size + 1).fill(0);
    let wins = 0;
    const heads = variant.rules.first4Reversed && dealt.length < 4 && undealt.length > 0
      ? permutationsOf(undealt, Math.min(4, deck.size) - dealt.length) : [[]];
    for (const head of heads) {
      const prefix = dealt.concat(head);
      const rest = undealt.filter((c) => !head.includes(c));
      const { rs, rr, emptied: before } = settledPosition(prefix, deck, variant);
      const { hist, emptied } = counter.count(rs, rr, rest);
      hist.forEach((c, s) => { scoreCounts[s] += c; });
      const orders = factorial(rest.length);
      if (!variant.rules.winAny) wins += hist[0] || 0;
      else if (before) wins += orders;
      else wins += rest.length ? emptied : (hist[0] || 0);
    }
    return { wins, total, scoreCounts };
  }

  /** A small seeded generator for the simulation (xoshiro128**; the seed is shown on the page). */
  function xoshiro(seed) {
    const words = seedSequenceState(seed, 4);
    let [a, b, c, d] = words;
    if (!(a | b | c | d)) a = 1;
    return () => {
      const result = Math.imul(((Math.imul(b, 5) << 7) | (Math.imul(b, 5) >>> 25)), 9) >>> 0;
      const t = b << 9;
      c ^= a; d ^= b; b ^= c; a ^= d; c ^= t;
      d = (d << 11) | (d >>> 21);
      return result;
    };
  }

  /** Simulated odds after `dealt`: `games` random orders of the cards to come. */
  function simulateOdds(dealt, deck, variant, games, seed) {
    const next = xoshiro(seed);
    const inDealt = new Set(dealt);
    const undealt = [];
    for (let c = 0; c < deck.size; c++) if (!inDealt.has(c)) undealt.push(c);
    const reversedHead = variant.rules.first4Reversed && dealt.length < 4;
    const start = reversedHead ? { rs: [], rr: [], emptied: false } : settledPosition(dealt, deck, variant);
    const { reverse, finalOnce, winAny } = variant.rules;
    const k = undealt.length;
    const scoreCounts = new Array(deck.size + 1).fill(0);
    let wins = 0;
    const cards = Int32Array.from(undealt);
    const deal = new Int32Array(reversedHead ? deck.size : k);
    const rs = new Int32Array(deck.size + 1), rr = new Int32Array(deck.size + 1);
    const suitOf = Int32Array.from({ length: deck.size }, (_, c) => deck.suit(c));
    const rankOf = Int32Array.from({ length: deck.size }, (_, c) => deck.rank(c));
    const firstAt = reversedHead ? 0 : dealt.length;
    const start0 = start.rs.length;
    for (let g = 0; g < games; g++) {
      for (let i = k - 1; i > 0; i--) { // Fisher-Yates
        const j = Math.floor((next() / 4294967296) * (i + 1));
        const x = cards[i]; cards[i] = cards[j]; cards[j] = x;
      }
      if (reversedHead) deal.set(dealingOrder(dealt.concat(Array.from(cards)), variant));
      else deal.set(cards);
      for (let i = 0; i < start0; i++) { rs[i] = start.rs[i]; rr[i] = start.rr[i]; }
      let n = start0, emptied = start.emptied;
      for (let i = 0; i < deal.length; i++) {
        rs[n] = suitOf[deal[i]]; rr[n] = rankOf[deal[i]]; n++;
        let most = finalOnce && firstAt + i === deck.size - 1 ? 1 : n;
        while (n >= 4 && most-- > 0) {
          const what = removal(rs[n - 1] === rs[n - 4], rr[n - 1] === rr[n - 4], reverse);
          if (what === REMOVE_BETWEEN) { rs[n - 3] = rs[n - 1]; rr[n - 3] = rr[n - 1]; n -= 2; }
          else if (what === REMOVE_FOUR) n -= 4;
          else break;
          if (n === 0) emptied = true;
        }
      }
      scoreCounts[n]++;
      if (n === 0 || (winAny && emptied)) wins++;
    }
    return { wins, total: games, scoreCounts };
  }

  // 95% intervals as sim.stats.binomial_interval: Wilson, Clopper-Pearson below 10 wins or losses
  const Z95 = 1.959963984540054;
  function wilson(x, n) {
    const p = x / n, z = Z95, denom = 1 + z * z / n;
    const centre = (p + z * z / (2 * n)) / denom;
    const half = z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom;
    return [Math.max(0, centre - half), Math.min(1, centre + half)];
  }
  function binomCdf(x, n, p) { // P(X <= x), x small
    if (p <= 0) return 1;
    if (p >= 1) return x >= n ? 1 : 0;
    let sum = 0, logC = 0;
    for (let i = 0; i <= x; i++) {
      if (i > 0) logC += Math.log((n - i + 1) / i);
      sum += Math.exp(logC + i * Math.log(p) + (n - i) * Math.log1p(-p));
    }
    return Math.min(1, sum);
  }
  function bisect(f, lo, hi) { // f increasing in p; root of f = 0
    for (let i = 0; i < 200; i++) { const mid = (lo + hi) / 2; if (f(mid) > 0) hi = mid; else lo = mid; }
    return (lo + hi) / 2;
  }
  function clopperPearson(x, n) {
    if (n - x < x) { const [lo, hi] = clopperPearson(n - x, n); return [1 - hi, 1 - lo]; }
    const alpha = 0.05;
    // x is small here: tails of few terms
    const low = x === 0 ? 0 : bisect((p) => (1 - binomCdf(x - 1, n, p)) - alpha / 2, 0, 1);
    const high = x === n ? 1 : bisect((p) => alpha / 2 - binomCdf(x, n, p), 0, 1);
    return [low, high];
  }
  function interval95(x, n) { return Math.min(x, n - x) < 10 ? clopperPearson(x, n) : wilson(x, n); }

  function now() { return (root.performance && root.performance.now) ? root.performance.now() : Date.now(); }

  /**
   * The chance of winning after each card of a One-Handed deal (0 .. all cards dealt). Exact from the
   * end of the game back while the counting fits in `budgetMs` (the memo is shared: each position's
   * orders extend the next one's); the positions before are simulated, `games` games each, seeds
   * seed + t, with a 95% interval.
   */
  function oddsEach(order, deck, variant, opts = {}) {
    const job = oddsJob(order, deck, variant, opts);
    while (!job.step());
    return job.out;
  }

  /**
   * The same, one position per call of step() (true when all are done), so that a page can keep
   * answering between positions: exact positions first, from the end back, then the simulated ones.
   */
  function oddsJob(order, deck, variant, { budgetMs = 1000, games = 20000, seed = 1n } = {}) {
    const n = deck.size;
    const out = new Array(n + 1);
    let counter = null;
    let t = n, exact = true;
    const job = { out, step() {
      if (t < 0) return true;
      if (exact) {
        if (!counter) counter = new ExactCounter(deck, variant, now() + budgetMs);
        try {
          const r = exactOdds(order.slice(0, t), deck, variant, counter);
          const g = gcd(r.wins, r.total);
          out[t] = { dealt: t, method: "exact", wins: r.wins, total: r.total, p: r.wins / r.total,
            fraction: r.wins === 0 ? "0" : r.wins === r.total ? "1" : `${r.wins / g}/${r.total / g}` };
          t--;
          return t < 0;
        } catch (err) {
          if (!(err instanceof OutOfBudget)) throw err;
          exact = false;
          counter = null; // frees the memo
        }
      }
      const s = BigInt(seed) + BigInt(t);
      const r = simulateOdds(order.slice(0, t), deck, variant, games, s);
      out[t] = { dealt: t, method: "simulated", wins: r.wins, total: r.total, p: r.wins / r.total,
        ci95: interval95(r.wins, r.total), seed: String(s) };
      t--;
      return t < 0;
    } };
    return job;
  }

  const api = {
    UsageError, pyRepr, GAMES, GAME_NAMES, getGame, Variant, Deck, MAX_PAGE_CARDS,
    SUIT_LETTERS, SUIT_SYMBOLS, RANK_NAMES, cardName, formatCards, parseCards, parseSeed, newSeed,
    PythonRandom, NumpyPCG64, seededOrder, removal, dealingOrder,
    playOneHanded, playHand, playPrisoners, play, traceToDict, describe, DEFAULT_CAP,
    settledPosition, exactOdds, ExactCounter, simulateOdds, oddsEach, oddsJob, interval95, wilson, clopperPearson,
    MAX_EXACT_LEFT,
  };
  root.SolitaireRules = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
