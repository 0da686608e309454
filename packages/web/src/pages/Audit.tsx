import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Input, Label, SearchField } from 'react-aria-components';
import { api, formatTime } from '../api.ts';
import { Choice } from '../forms.tsx';
import { Card, ErrorNote, Loading, Page, StateBadge } from '../ui.tsx';

type Outcome = 'any' | 'ok' | 'partial' | 'failed';

/** The audit log, newest first, a page of 100 at a time; filtered in the page by words and outcome. */
export function Audit() {
  const [words, setWords] = useState('');
  const [outcome, setOutcome] = useState<Outcome>('any');
  const audit = useInfiniteQuery({
    queryKey: ['audit'],
    queryFn: ({ pageParam }) =>
      api.get('/audit', { query: { limit: '100', ...(pageParam ? { before: String(pageParam) } : {}) } }),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.nextBefore,
  });
  const needle = words.trim().toLowerCase();
  const rows = (audit.data?.pages ?? [])
    .flatMap((p) => p.entries)
    .filter((e) => outcome === 'any' || e.outcome === outcome)
    .filter(
      (e) =>
        !needle ||
        `${e.operation} ${e.target} ${e.actor} ${JSON.stringify(e.details ?? '')}`
          .toLowerCase()
          .includes(needle),
    );
  return (
    <Page title="Audit log">
      <Card title="Entries" id="audit">
        <div className="actions">
          <SearchField className="field" value={words} onChange={setWords}>
            <Label>Filter (operation, target, who, details)</Label>
            <Input />
          </SearchField>
          <Choice
            label="Outcome"
            value={outcome}
            options={[
              ['any', 'any'],
              ['ok', 'ok'],
              ['partial', 'partial'],
              ['failed', 'failed'],
            ]}
            onChange={setOutcome}
          />
        </div>
        <ErrorNote error={audit.error} />
        {!audit.data ? <Loading what="the audit log" /> : null}
        {audit.data ? (
          <div className="table-wrap">
            <table className="table" data-testid="audit">
              <caption className="sr-only">Audit entries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Operation</th>
                  <th scope="col">Target</th>
                  <th scope="col">Outcome</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((e) => (
                  <tr key={e.id}>
                    <td>{formatTime(e.at)}</td>
                    <td>{e.actor}</td>
                    <th scope="row">{e.operation}</th>
                    <td>{e.target}</td>
                    <td>
                      <StateBadge state={e.outcome} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {rows.length === 0 ? <p>No entry matches.</p> : null}
          </div>
        ) : null}
        {audit.hasNextPage ? (
          <Button
            className="button"
            onPress={() => void audit.fetchNextPage()}
            isDisabled={audit.isFetchingNextPage}
          >
            Load older entries
          </Button>
        ) : null}
      </Card>
    </Page>
  );
}
