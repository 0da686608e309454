import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import {
  Button,
  Form,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
} from 'react-aria-components';
import { Link } from 'react-router';
import { api, formatBytes, formatSeconds } from '../api.ts';
import { useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, JobProgress, KeyValues, Page, StateBadge, Scroll } from '../ui.tsx';
import { useArray } from './Dashboard.tsx';
import { useDisks } from './Disks.tsx';

type Kind = 'replace' | 'upgrade';
type Plan = Awaited<ReturnType<typeof api.post<'/disks/array/upgrade/plan'>>>;

function Picker({
  label,
  items,
  value,
  onChange,
  isDisabled,
}: {
  label: string;
  items: Array<{ id: string; text: string }>;
  value: string | null;
  onChange: (v: string) => void;
  isDisabled: boolean;
}) {
  return (
    <Select
      className="select field"
      selectedKey={value}
      onSelectionChange={(k) => onChange(String(k))}
      isDisabled={isDisabled}
      placeholder="Choose…"
    >
      <Label>{label}</Label>
      <Button className="button">
        <SelectValue />
        <span aria-hidden="true"> ▾</span>
      </Button>
      <Popover className="popover">
        <ListBox className="listbox" items={items}>
          {(item) => (
            <ListBoxItem id={item.id} className="option">
              {item.text}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}

/** The result's own sentence (files rebuilt, the old disk to keep), when it has one. */
function resultMessage(result: unknown): string | null {
  const m = result && typeof result === 'object' ? (result as Record<string, unknown>)['message'] : null;
  return typeof m === 'string' ? m : null;
}

/** Replace a failed disk or upgrade one: plan → warnings and steps → typed confirmation → progress → result. */
export function DiskWizard({ kind }: { kind: Kind }) {
  const readOnly = useReadOnly();
  const array = useArray();
  const disks = useDisks();
  const [slot, setSlot] = useState<string | null>(null);
  const [device, setDevice] = useState<string | null>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const job = useQuery({
    queryKey: ['job', jobId],
    queryFn: () => api.get('/jobs/{id}', { params: { id: jobId! } }),
    enabled: jobId !== null,
    refetchInterval: (q) =>
      q.state.data && ['running', 'queued'].includes(q.state.data.state) ? 3000 : false,
  });
  const slots = (array.data?.disks ?? []).map((d) => ({
    id: d.mountpoint,
    text: `${d.mountpoint} (${d.role}, ${d.device}${d.mounted ? '' : ', offline'})`,
  }));
  const spares = (disks.data?.disks ?? [])
    .filter((d) => !d.arrayMountpoint && !d.boot && !d.inUse)
    .map((d) => ({
      id: d.device,
      text: `${d.device} ${formatBytes(d.sizeBytes)}${d.model ? ` ${d.model}` : ''}`,
    }));
  const title = kind === 'replace' ? 'Replace a failed disk' : 'Upgrade a disk';
  const planPath = kind === 'replace' ? '/disks/array/replace/plan' : '/disks/array/upgrade/plan';
  const j = job.data;
  return (
    <Page title={title} actions={<Link to="/disks">Back to disks</Link>}>
      <ol className="steps" aria-label="Steps">
        <li aria-current={!plan ? 'step' : undefined}>Plan</li>
        <li aria-current={plan && !jobId ? 'step' : undefined}>Confirm</li>
        <li aria-current={jobId && j && ['running', 'queued'].includes(j.state) ? 'step' : undefined}>
          Progress
        </li>
        <li aria-current={j && !['running', 'queued'].includes(j.state) ? 'step' : undefined}>Result</li>
      </ol>
      {!jobId ? (
        <Card title="1. Plan" id="plan">
          <Form
            className="form"
            onSubmit={async (e) => {
              e.preventDefault();
              setError(null);
              setPlan(null);
              try {
                setPlan(await api.post(planPath, { body: { mountpoint: slot!, device: device! } }));
              } catch (err) {
                setError(err);
              }
            }}
          >
            <Picker
              label={kind === 'replace' ? 'Failed disk (slot)' : 'Disk to upgrade (slot)'}
              items={slots}
              value={slot}
              onChange={setSlot}
              isDisabled={readOnly}
            />
            <Picker
              label="New disk"
              items={spares}
              value={device}
              onChange={setDevice}
              isDisabled={readOnly}
            />
            <ErrorNote error={error} />
            <Button type="submit" className="button primary" isDisabled={readOnly || !slot || !device}>
              Make the plan
            </Button>
          </Form>
        </Card>
      ) : null}
      {plan && !jobId ? (
        <Card title="2. Review and confirm" id="review">
          <KeyValues
            rows={[
              ['Slot', `${plan.mountpoint} (${plan.role})`],
              ['Old disk', `${plan.previousDevice} ${formatBytes(plan.previousSizeBytes)}`],
              ['New disk', `${plan.replacementDevice} ${formatBytes(plan.sizeBytes)}`],
              ['Filesystem', plan.filesystem],
              ['Estimated time', formatSeconds(plan.estimate.seconds)],
            ]}
          />
          {plan.warnings.length > 0 ? (
            <ul className="warnings">
              {plan.warnings.map((w) => (
                <li key={w.code} className="bad">
                  {w.message}
                </li>
              ))}
            </ul>
          ) : null}
          <h3>Steps</h3>
          <ol>
            {plan.steps.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ol>
          <ConfirmDialog
            trigger={kind === 'replace' ? 'Start the replacement' : 'Start the upgrade'}
            title={title}
            phrase={plan.confirmation}
            confirmLabel="Start"
            danger
            isDisabled={readOnly}
            onConfirm={async (typed) => {
              const body = {
                mountpoint: plan.mountpoint,
                device: plan.replacementDevice,
                confirmation: typed,
              };
              const started =
                kind === 'replace'
                  ? await api.post('/disks/array/replace', { body })
                  : await api.post('/disks/array/upgrade', { body });
              setJobId(started.jobId);
            }}
          >
            <p>{plan.replacementDevice} will be erased.</p>
          </ConfirmDialog>
        </Card>
      ) : null}
      {jobId ? (
        <Card
          title={j && !['running', 'queued'].includes(j.state) ? '4. Result' : '3. Progress'}
          id="progress"
        >
          <ErrorNote error={job.error} />
          {j ? (
            <>
              <p>
                <StateBadge state={j.state} /> <Link to={`/jobs/${j.id}`}>Job details</Link>
              </p>
              <JobProgress job={j} />
              {resultMessage(j.result) ? <p data-testid="wizard-message">{resultMessage(j.result)}</p> : null}
              {j.result ? (
                <Scroll label="Result">
                  <pre className="output" data-testid="wizard-result">
                    {JSON.stringify(j.result, null, 2)}
                  </pre>
                </Scroll>
              ) : null}
            </>
          ) : null}
        </Card>
      ) : null}
    </Page>
  );
}
