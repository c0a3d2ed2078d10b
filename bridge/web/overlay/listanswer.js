// A list answer built item by item in the overlay (a `multiple` choice: 16.5.4 "answer a list of
// 'unit:steps>hex'"). Why a draft in the page: the daemon plans every answer it is sent, and a part of
// a list is not a legal answer ("moves 1 step(s); exactly 2 are necessary"), so it would be refused and
// taken back, and the next click would start over. The page keeps the list being built, shows how far
// it is from the total the rules ask for ("1 of 2 steps chosen"), and sends it once, complete.
// Options of one unit into one place with different amounts (1 or 2 steps) are one count, − and +.
"use strict";

(function () {
  const drafts = new Map(); // choice id -> {key, picked: Map(group -> value)} (survives re-renders)

  function plural(noun, n) { return n === 1 ? noun : `${noun}s`; }

  function render(choice, page) {
    const { el, send, answerText, optionValue, optionLabel } = page;
    const options = (Array.isArray(choice.options) ? choice.options : []).map((option) => ({
      value: answerText(optionValue(option)),
      label: String(optionLabel(option)),
      group: option && option.group ? String(option.group) : answerText(optionValue(option)),
      groupLabel: option && option.group_label ? String(option.group_label) : String(optionLabel(option)),
      amount: option && Number.isFinite(option.amount) ? option.amount : 1,
      grouped: Boolean(option && option.group),
    }));
    const key = options.map((o) => o.value).join("\u0000");
    let draft = drafts.get(choice.id);
    if (!draft || draft.key !== key) {
      draft = { key, picked: new Map() };
      const current = Array.isArray(page.current) ? page.current.map(answerText) : [];
      for (const option of options) if (current.includes(option.value)) draft.picked.set(option.group, option.value);
      drafts.set(choice.id, draft);
    }
    const total = Number.isFinite(choice.total) ? choice.total : null;
    const noun = choice.noun || "item";
    const amountOf = (value) => (options.find((o) => o.value === value) || { amount: 0 }).amount;
    const sum = [...draft.picked.values()].reduce((n, v) => n + amountOf(v), 0);
    const node = el("div", { class: "list-answer" });
    const rerender = () => node.replaceWith(render(choice, page));

    const groups = new Map();
    for (const option of options) {
      if (!groups.has(option.group)) groups.set(option.group, []);
      groups.get(option.group).push(option);
    }
    const rows = el("div", { class: "options" });
    for (const [group, members] of groups) {
      members.sort((a, b) => a.amount - b.amount);
      const chosen = draft.picked.get(group);
      const count = chosen ? amountOf(chosen) : 0;
      if (members.length === 1 && !members[0].grouped) {
        const option = members[0];
        const button = el("button", { type: "button", class: chosen ? "option chosen" : "option", "data-value": option.value,
          "aria-pressed": chosen ? "true" : "false" }, option.label);
        button.addEventListener("click", () => {
          if (chosen) draft.picked.delete(group); else draft.picked.set(group, option.value);
          rerender();
        });
        rows.append(button);
        continue;
      }
      // A count: 0 .. the largest amount this unit may give here (never past the total).
      const step = (delta) => {
        const next = count + delta;
        const target = members.find((o) => o.amount === next);
        if (next <= 0) draft.picked.delete(group);
        else if (target) draft.picked.set(group, target.value);
        rerender();
      };
      const room = total === null ? Infinity : total - sum;
      const bigger = members.find((o) => o.amount === count + 1);
      const less = el("button", { type: "button", class: "less", "aria-label": `one ${noun} fewer`, disabled: count === 0 }, "−");
      const more = el("button", { type: "button", class: "more", "aria-label": `one ${noun} more`,
        disabled: !bigger || room < 1 }, "+");
      less.addEventListener("click", () => step(-1));
      more.addEventListener("click", () => step(+1));
      const max = members[members.length - 1].amount;
      rows.append(el("div", { class: count ? "tally-row chosen" : "tally-row", "data-group": group },
        less, el("span", { class: "count" }, String(count)), more,
        el("span", { class: "tally-label" }, ` ${members[0].groupLabel}`),
        el("span", { class: "tally-max" }, ` (up to ${max} ${plural(noun, max)})`)));
    }
    node.append(rows);

    const values = options.filter((o) => [...draft.picked.values()].includes(o.value)).map((o) => o.value);
    const complete = total === null ? true : sum === total;
    const progress = total === null
      ? `${values.length} chosen`
      : `${sum} of ${total} ${plural(noun, total)} chosen${sum > total ? " (too many)" : ""}`;
    const submit = el("button", { type: "button", class: "submit", disabled: !complete }, "Submit answer");
    submit.addEventListener("click", () => send({ type: "answer", choice: choice.id, option: values }));
    const reset = el("button", { type: "button", class: "reset", disabled: draft.picked.size === 0 }, "Start over");
    reset.addEventListener("click", () => { draft.picked.clear(); rerender(); });
    node.append(el("div", { class: "list-progress" }, el("span", { class: "progress-text" }, progress), " ", submit, " ", reset));
    if (page.view === "control") node.append(page.cliLine(choice.id, values));
    return node;
  }

  window.AdjutantListAnswer = { render };
})();
