// Settings › AI provider (admin): the provider the assistant and triage use
// (getAIProvider, putAIProvider, deleteAIProvider) and its connection test
// (testAIProvider). The API key is write-only: the API answers only whether
// one is stored, the field starts empty and is cleared after a save, and an
// empty field keeps the stored key. "Test connection" tries the settings in
// the form without saving them (the gateway sends the stored key only to the
// stored endpoint), or the saved ones when nothing is configured in the form.
import { useLayoutEffect, useState } from 'react';
import { ApiError, client } from '../../api';
import type { AIProvider as Provider, AIProviderRequest as ProviderRequest, Answer } from '../../types';
import { Button, ErrorBox, Loading, Section, fmtTime, useAction, useLoad } from '../../ui';

type TestResult = Answer<'testAIProvider'>;

/** The types the gateway accepts (apps/api-gateway/src/ai/provider.ts PROVIDER_TYPES), with what each needs. */
const TYPES: { id: string; label: string; hint: string }[] = [
  { id: 'openai', label: 'OpenAI', hint: 'api.openai.com unless a base URL is given; needs an API key.' },
  { id: 'openai_compatible', label: 'OpenAI-compatible', hint: 'Any server with the chat completions API (vLLM, LiteLLM, LM Studio …); base URL required.' },
  { id: 'ollama', label: 'Ollama', hint: 'A local Ollama server, e.g. http://127.0.0.1:11434/v1; base URL required, usually no key.' },
  { id: 'anthropic', label: 'Anthropic', hint: 'api.anthropic.com unless a base URL is given; needs an API key.' },
];

/** getAIProvider, or null when none is configured (its 404). */
async function loadProvider(): Promise<Provider | null> {
  try {
    return await client.get('/api/v1/ai/provider');
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

export function AISettings() {
  const provider = useLoad(loadProvider, []);
  const p = provider.data;
  const [type, setType] = useState('openai_compatible');
  const [model, setModel] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [keySecret, setKeySecret] = useState('');
  const [removeKey, setRemoveKey] = useState(false);
  const [autoTriage, setAutoTriage] = useState(false);
  const [saved, setSaved] = useState('');
  const [tested, setTested] = useState<TestResult & { reply?: string; model?: string }>();

  // The form starts from the stored settings, and again after each save or
  // delete; before paint, so it never shows its empty defaults in between.
  useLayoutEffect(() => {
    if (p === undefined) return;
    setType(p?.type ?? 'openai_compatible');
    setModel(p?.model ?? '');
    setBaseUrl(p?.base_url ?? '');
    setKeySecret(p?.api_key_secret ?? '');
    setAutoTriage(p?.auto_triage ?? false);
    setApiKey('');
    setRemoveKey(false);
  }, [p]);

  const settings = (): ProviderRequest => ({
    type,
    model,
    ...(baseUrl ? { base_url: baseUrl } : {}),
    ...(keySecret ? { api_key_secret: keySecret } : {}),
    auto_triage: autoTriage,
  });

  const save = useAction(async () => {
    setSaved('');
    setTested(undefined);
    const body: ProviderRequest = { ...settings(), ...(apiKey ? { api_key: apiKey } : removeKey ? { api_key: null } : {}) };
    const out = await client.put('/api/v1/ai/provider', { body });
    setApiKey('');
    provider.setData(out);
    setSaved(`Saved: ${out.type} · ${out.model}`);
  });
  const remove = useAction(async () => {
    await client.delete('/api/v1/ai/provider');
    setSaved('');
    setTested(undefined);
    provider.setData(null);
  });
  const test = useAction(async () => {
    setTested(undefined);
    // The form's settings (a typed key goes with them, else the gateway uses the stored one where it may).
    const body: ProviderRequest = { ...settings(), ...(apiKey ? { api_key: apiKey } : {}) };
    setTested(await client.post('/api/v1/ai/provider/test', model ? { body } : {}));
  });

  const hint = TYPES.find((t) => t.id === type)?.hint;
  return (
    <Section title="AI provider">
      <p className="muted small">
        The model behind the assistant and the triage of failed executions. The API key is write-only: it is stored sealed with the master key and never shown again; leave the
        field empty to keep the stored one.
      </p>
      <ErrorBox error={provider.error} />
      {p === undefined ? (
        !provider.error && <Loading what="the AI provider" />
      ) : (
        <>
          <p data-testid="ai-provider-status">
            {p ? (
              <>
                <span className="badge state-success">enabled</span> <strong>{p.type}</strong> · <code>{p.model}</code>
                {p.base_url ? (
                  <>
                    {' '}
                    at <code>{p.base_url}</code>
                  </>
                ) : null}{' '}
                · API key:{' '}
                {p.has_api_key ? (
                  'stored (hidden)'
                ) : p.api_key_secret ? (
                  <>
                    from secret <code>{p.api_key_secret}</code>
                  </>
                ) : (
                  'none'
                )}
                {typeof p.updated_at === 'string' && <span className="muted small"> · updated {fmtTime(p.updated_at)}</span>}
              </>
            ) : (
              <>
                <span className="badge">disabled</span> No AI provider is configured: the assistant and triage are off.
              </>
            )}
          </p>
          <form
            className="ai-provider-form"
            aria-label="AI provider settings"
            onSubmit={(e) => {
              e.preventDefault();
              void save.run();
            }}
          >
            <label>
              Type
              <select value={type} onChange={(e) => setType(e.target.value)}>
                {TYPES.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.label}
                  </option>
                ))}
              </select>
            </label>
            {hint && <p className="muted small">{hint}</p>}
            <label>
              Model <input value={model} onChange={(e) => setModel(e.target.value)} required placeholder="gpt-4o-mini" />
            </label>
            <label>
              Base URL <input type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="https://… (no credentials in it)" />
            </label>
            <label>
              API key
              <input
                type="password"
                autoComplete="new-password"
                value={apiKey}
                onChange={(e) => setApiKey(e.target.value)}
                placeholder={p?.has_api_key ? 'stored (hidden); type to replace' : 'not set'}
              />
            </label>
            {p?.has_api_key && (
              <label className="inline">
                <input type="checkbox" checked={removeKey} disabled={!!apiKey} onChange={(e) => setRemoveKey(e.target.checked)} /> Remove the stored key
              </label>
            )}
            <label>
              API key from global secret <input value={keySecret} onChange={(e) => setKeySecret(e.target.value)} placeholder="OPENAI_API_KEY (instead of a key above)" />
            </label>
            <label className="inline">
              <input type="checkbox" checked={autoTriage} onChange={(e) => setAutoTriage(e.target.checked)} /> Triage failed and timed-out executions automatically
            </label>
            <div className="row">
              <Button type="submit" disabled={save.busy}>
                Save
              </Button>
              <Button disabled={test.busy || (!model && !p)} onClick={() => void test.run()}>
                {test.busy ? 'Testing…' : 'Test connection'}
              </Button>
              {p && (
                <Button onClick={() => confirm('Remove the AI provider? The assistant and triage stop working.') && void remove.run()} disabled={remove.busy}>
                  Remove provider
                </Button>
              )}
            </div>
          </form>
          <ErrorBox error={save.error ?? test.error ?? remove.error} />
          {saved && (
            <p role="status" className="notice small">
              {saved}
            </p>
          )}
          {tested && (
            <p role="status" className={tested.ok ? 'notice small' : 'error small'} data-testid="ai-provider-test">
              {tested.ok ? (
                <>
                  <strong>Connection works</strong>: {tested.model ? <code>{String(tested.model)}</code> : 'the model'} answered “{String(tested.reply ?? '')}”.
                </>
              ) : (
                <>
                  <strong>Connection failed</strong>: {tested.error}
                </>
              )}
            </p>
          )}
        </>
      )}
    </Section>
  );
}
