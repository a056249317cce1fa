export { mountConsole, type ConsoleOptions } from './mount-console.js';
export { consoleSections } from './sections.js';
export type { ActionForm, ConsoleContext, ConsoleDependencies, ConsoleSection, PageOptions } from './console-section.js';
export { html, EMPTY_HTML, type Html } from './html.js';
