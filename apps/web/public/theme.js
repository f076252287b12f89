// Set the theme before the first paint, so a dark user never sees a light flash.
// A classic (blocking) script in <head>, served as a file because the gateway's
// Content-Security-Policy allows no inline script.
try {
  var t = localStorage.getItem('svc-theme');
  document.documentElement.dataset.theme = t || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
} catch (e) {}
