import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { prefetch } from './api';
import { preloadTaskGraph } from './components/Dag';
import { App } from './App';
import { LocationProvider } from './router';
import './styles.css';

// The opened page's first data, requested while React starts (api.ts: prefetch).
prefetch('/auth/me');
const at = window.location.pathname;
const search = new URLSearchParams(window.location.search);
if (at === '/') prefetch('/stats/dashboard', { range: search.get('range') || '24h', namespace: search.get('namespace') ?? '' });
const execution = /^\/executions\/([^/]+)$/.exec(at);
if (execution) {
  prefetch(`/executions/${execution[1]}`);
  preloadTaskGraph();
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <LocationProvider>
      <App />
    </LocationProvider>
  </StrictMode>,
);
