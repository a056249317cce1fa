import { createHash } from 'node:crypto';

/** The console's only stylesheet, inlined in every page (no asset route, works offline). */
export const CONSOLE_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --soft: #f6f8fa; --accent: #0b5cad;
  --llm: #2f6fde; --tool: #1a7f37; --other: #8250df; --error: #cf222e; --telegram: #2f6fde; --slack: #8a3ffc; --feishu: #1a7f37; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--ink); background: #fff; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, summary:focus-visible, main:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem 1rem; }
.skip:focus { left: .5rem; z-index: 1; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
header.site { background: #24292f; color: #fff; padding: .5rem 1rem; display: flex; flex-wrap: wrap; gap: .25rem 1.5rem; align-items: center; }
header.site .brand { margin: 0; font-weight: 600; }
header.site a { color: #fff; text-decoration: none; }
header.site nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem; margin: 0; padding: 0; }
header.site nav a { display: inline-block; padding: .35rem .7rem; border-radius: .4rem; }
header.site nav a:hover { background: #3b434b; }
header.site nav a[aria-current="page"] { background: #fff; color: #24292f; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 1rem; font-size: .8rem; background: var(--soft); border: 1px solid var(--line); color: var(--ink); }
.badge.readonly { background: #fff8c5; border-color: #d4a72c; }
.badge.failed, .badge.error { background: #ffebe9; border-color: var(--error); color: #82071e; }
.badge.cancelled { background: #fff8c5; border-color: #d4a72c; }
.badge.completed { background: #dafbe1; border-color: #4ac26b; }
main { max-width: 75rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .5rem; }
.lead { color: var(--muted); margin-top: -.5rem; }
.notice { padding: .6rem 1rem; border-left: 4px solid var(--accent); background: #ddf4ff; margin: 1rem 0; }
.notice.problem { border-color: var(--error); background: #ffebe9; }
.table-scroll { overflow-x: auto; margin: .5rem 0 1rem; position: relative; }
table { border-collapse: collapse; width: 100%; font-size: .95rem; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
tbody th { background: transparent; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; overflow-wrap: anywhere; }
form.search, form.range { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: 0 0 1rem; }
form.search label, form.range label { display: flex; flex-direction: column; font-size: .9rem; color: var(--muted); }
input[type="search"], input[type="date"], input[type="number"], select { font: inherit; padding: .4rem .5rem; border: 1px solid var(--line); border-radius: .4rem; min-width: 12rem; }
button, .button { font: inherit; padding: .4rem .9rem; border-radius: .4rem; border: 1px solid #1f883d; background: #1f883d; color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #fff; color: var(--ink); border-color: var(--line); }
form.action { margin: 0; }
.pager { display: flex; gap: 1rem; flex-wrap: wrap; margin: 1rem 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0 0 1rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
section.turn { border: 1px solid var(--line); border-radius: .5rem; padding: .5rem 1rem 1rem; margin: 1rem 0; }
section.turn > h2 { display: flex; flex-wrap: wrap; gap: .5rem; align-items: baseline; font-size: 1.05rem; }
ol.messages { list-style: none; margin: 0; padding: 0; }
ol.messages > li { border-left: 4px solid var(--line); padding: .25rem .75rem; margin: .5rem 0; }
ol.messages > li.role-user { border-color: var(--accent); }
ol.messages > li.role-assistant { border-color: #1f883d; }
ol.messages > li.role-tool { border-color: var(--other); background: var(--soft); }
.message-head { font-size: .85rem; color: var(--muted); display: flex; flex-wrap: wrap; gap: .5rem; }
.message-head .role { font-weight: 600; color: var(--ink); text-transform: capitalize; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: .25rem 0; }
.tool-call { margin: .25rem 0; }
details.spans { margin-top: .75rem; }
details.spans > summary { cursor: pointer; font-weight: 600; padding: .25rem 0; }
svg.timeline { display: block; width: 100%; margin: .5rem 0; background: var(--soft); border-radius: .25rem; }
.kind-llm { fill: var(--llm); } .kind-tool { fill: var(--tool); } .kind-other { fill: var(--other); } .is-error { fill: var(--error); }
rect.nested { opacity: .75; } .nesting { color: var(--muted); }
.nesting.depth-1 { padding-left: 1.25rem; } .nesting.depth-2 { padding-left: 2.5rem; } .nesting.depth-3 { padding-left: 3.75rem; }
.legend { display: flex; flex-wrap: wrap; gap: 1rem; font-size: .85rem; color: var(--muted); margin: .25rem 0; padding: 0; list-style: none; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: .15rem; margin-right: .3rem; vertical-align: -.1rem; }
.swatch.kind-llm { background: var(--llm); } .swatch.kind-tool { background: var(--tool); } .swatch.kind-other { background: var(--other); } .swatch.is-error { background: var(--error); }
.swatch.channel-telegram { background: var(--telegram); } .swatch.channel-slack { background: var(--slack); } .swatch.channel-feishu { background: var(--feishu); } .swatch.channel-other { background: #6e7781; }
svg.split-bar { display: block; width: 100%; height: 1.25rem; margin: .25rem 0; background: var(--soft); border-radius: .2rem; }
figure.prompt-split { margin: .5rem 0; } figure.prompt-split figcaption { font-size: .85rem; color: var(--muted); }
.split-system { fill: #2f6fde; background: #2f6fde; } .split-tools { fill: #8250df; background: #8250df; } .split-memories { fill: #bf8700; background: #bf8700; }
.split-summary { fill: #1a7f37; background: #1a7f37; } .split-history { fill: #6e7781; background: #6e7781; } .split-message { fill: #cf222e; background: #cf222e; }
.split-turn { fill: #0a3069; background: #0a3069; } .split-cached { fill: #d4a72c; background: #d4a72c; }
svg.chart { display: block; width: 100%; max-width: 60rem; height: auto; }
svg.chart .axis { stroke: var(--line); } svg.chart text { fill: var(--muted); font-size: 11px; }
.channel-telegram { fill: var(--telegram); } .channel-slack { fill: var(--slack); } .channel-feishu { fill: var(--feishu); } .channel-other { fill: #6e7781; }
ul.sections { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: 1rem; }
ul.sections li { border: 1px solid var(--line); border-radius: .5rem; padding: 1rem; }
ul.sections h2, ul.sections h3 { margin-top: 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 30rem), 1fr)); gap: 1rem; }
section.card { border: 1px solid var(--line); border-radius: .5rem; padding: .25rem 1rem .75rem; min-width: 0; }
section.card > h2 { margin-top: .75rem; }
.figure { margin: .25rem 0; color: var(--muted); }
.figure .value { font-size: 1.8rem; font-weight: 600; color: var(--ink); margin-right: .35rem; font-variant-numeric: tabular-nums; }
ul.plain { padding-left: 1.1rem; margin: .25rem 0 .75rem; }
ul.plain li { margin: .25rem 0; overflow-wrap: anywhere; }
footer.site { max-width: 75rem; margin: 2rem auto; padding: 0 1rem; color: var(--muted); font-size: .85rem; }
@media (max-width: 40rem) {
  body { font-size: 15px; }
  main { padding: .75rem; }
  section.turn { padding: .5rem .6rem .75rem; }
  input[type="search"], input[type="date"], input[type="number"], select { min-width: 0; width: 100%; }
  form.search label, form.range label { flex: 1 1 100%; }
  th, td { padding: .35rem .4rem; }
}
`;

/** For the Content-Security-Policy: this stylesheet may apply, nothing else (no scripts at all). */
export const CONSOLE_CSS_HASH = `'sha256-${createHash('sha256').update(CONSOLE_CSS).digest('base64')}'`;
