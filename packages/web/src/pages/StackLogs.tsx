import { useEffect, useState } from 'react';
import { api } from '../api.ts';
import { Card, Scroll } from '../ui.tsx';

type Line = Awaited<ReturnType<typeof api.get<'/stacks/{name}/logs'>>>['lines'][number];

/** Lines kept in the page; older ones scroll out. */
const MAX = 1000;

/**
 * A stack's logs followed live: `GET /stacks/{name}/logs?follow=1` as server-sent events (the last
 * 200 lines, then each new one). The stream ends when the containers stop; the page opens it
 * again when the stack's state changes (`key` on the stack's status). A reconnection starts over
 * from the tail, so nothing shows twice.
 */
export function StackLogs({ name }: { name: string }) {
  const [lines, setLines] = useState<Line[]>([]);
  const [state, setState] = useState<'connecting' | 'live' | 'ended' | 'failed'>('connecting');
  useEffect(() => {
    let buffer: Line[] = [];
    const stream = api.stream(
      '/stacks/{name}/logs',
      { params: { name }, query: { follow: '1', tail: '200' } },
      ['line', 'end'],
      {
        onOpen: () => {
          buffer = [];
          setLines([]);
          setState('live');
        },
        onEvent: (event, data) => {
          if (event === 'line' && data) {
            buffer = [...buffer, data as Line].slice(-MAX);
            setLines(buffer);
          } else if (event === 'end') {
            stream.close();
            setState('ended');
          }
        },
        onError: (closed) => {
          if (closed) setState('failed');
        },
      },
    );
    return () => stream.close();
  }, [name]);
  return (
    <Card title="Logs" id="stack-logs">
      <p className="muted" data-testid="stack-logs-state" aria-live="polite">
        {state === 'live'
          ? 'Following live: the last 200 lines of every service, then each new one.'
          : state === 'ended'
            ? 'No container runs: the log ends here (it follows again when the app starts).'
            : state === 'failed'
              ? 'The logs cannot be followed right now; reload the page to try again.'
              : 'Connecting to the logs…'}
      </p>
      {lines.length === 0 ? (
        <p className="muted">No output yet.</p>
      ) : (
        <Scroll label={`Logs of ${name}`}>
          <pre className="output" data-testid="stack-log-lines">
            {lines.map((l) => `${l.service} | ${l.text}`).join('\n')}
          </pre>
        </Scroll>
      )}
    </Card>
  );
}
