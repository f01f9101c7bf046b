// The page entry of index.html: settings from the URL, the panel in #app, settings changes
// mirrored back into the URL (so a view can be bookmarked or shared).

import { Panel } from './panel.js';
import { DEFAULTS, PARAMS, settingsFrom } from './settings.js';

const params = new URLSearchParams(location.search);
const settings = settingsFrom(params);
if (settings.lang) document.documentElement.lang = settings.lang;

const panel = new Panel(document.getElementById('app'), settings, {
  host: document.getElementById('app'),
  onSettings(s) {
    const p = new URLSearchParams(location.search);
    for (const [k, name] of Object.entries(PARAMS)) {
      if (s[k] === undefined || String(s[k]) === String(DEFAULTS[k])) p.delete(name);
      else p.set(name, s[k]);
    }
    history.replaceState(null, '', '?' + p.toString());
  },
});
window.bitlensPanel = panel;
panel.load();
