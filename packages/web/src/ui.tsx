import { type ReactNode, useState } from 'react';
import {
  Button,
  Dialog,
  DialogTrigger,
  FieldError,
  Heading,
  Input,
  Label,
  Modal,
  ModalOverlay,
  ProgressBar,
  TextField,
} from 'react-aria-components';
import { errorText, formatBytes, formatSeconds } from './api.ts';

export function Page({
  title,
  children,
  actions,
}: {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <section className="page" aria-labelledby="page-title">
      <div className="page-head">
        <h1 id="page-title">{title}</h1>
        {actions ? <div className="actions">{actions}</div> : null}
      </div>
      {children}
    </section>
  );
}

export function Card({ title, children, id }: { title: string; children: ReactNode; id?: string }) {
  const headingId = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-title`;
  return (
    <section className="card" aria-labelledby={headingId} data-card={id}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/** An API refusal or failure, as its sentence. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {errorText(error)}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** What a job's progress block reads (a `GET /jobs/{id}` answer has it). */
interface JobProgressView {
  state: string;
  phase?: string | null;
  percent: number | null;
  bytesDone?: number | null;
  bytesTotal?: number | null;
  etaSeconds?: number | null;
  error?: { message: string } | null;
}

/** A job's bar while it is queued or running, then its error sentence if it failed. */
export function JobProgress({ job }: { job: JobProgressView }) {
  const active = job.state === 'running' || job.state === 'queued';
  return (
    <>
      {active ? (
        <JobBar
          label={job.phase ?? 'waiting'}
          percent={job.percent}
          bytesDone={job.bytesDone}
          bytesTotal={job.bytesTotal}
          etaSeconds={job.etaSeconds}
        />
      ) : null}
      {job.error ? (
        <p className="error" role="alert">
          {job.error.message}
        </p>
      ) : null}
    </>
  );
}

/** A job's bar: percent when known, indeterminate otherwise. */
export function JobBar({
  label,
  percent,
  bytesDone,
  bytesTotal,
  etaSeconds,
}: {
  label: string;
  percent: number | null;
  bytesDone?: number | null;
  bytesTotal?: number | null;
  etaSeconds?: number | null;
}) {
  const known = percent !== null && percent !== undefined;
  return (
    <ProgressBar
      className="bar"
      value={known ? percent : 0}
      isIndeterminate={!known}
      aria-label={label}
      valueLabel={known ? `${Math.round(percent)}%` : 'working'}
    >
      {({ percentage, valueText }) => (
        <>
          <div className="bar-text">
            <span>{label}</span>
            <span className="value" data-testid="bar-value">
              {valueText}
              {bytesTotal ? ` · ${formatBytes(bytesDone ?? 0)} of ${formatBytes(bytesTotal)}` : ''}
              {etaSeconds ? ` · ${formatSeconds(etaSeconds)} left` : ''}
            </span>
          </div>
          <div className="track">
            <div className="fill" style={{ width: `${known ? percentage : 100}%` }} />
          </div>
        </>
      )}
    </ProgressBar>
  );
}

/**
 * A confirmation dialog (React Aria: focus trapped, Escape closes). With `phrase` the user must
 * type it exactly, as the API demands; `onConfirm` gets the typed text.
 */
export function ConfirmDialog({
  trigger,
  title,
  children,
  phrase,
  confirmLabel,
  onConfirm,
  isDisabled,
  danger,
}: {
  trigger: string;
  title: string;
  children: ReactNode;
  phrase?: string;
  confirmLabel: string;
  onConfirm: (typed: string) => Promise<unknown>;
  isDisabled?: boolean;
  danger?: boolean;
}) {
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <DialogTrigger
      onOpenChange={() => {
        setTyped('');
        setError(null);
      }}
    >
      <Button className={danger ? 'button danger' : 'button'} isDisabled={isDisabled ?? false}>
        {trigger}
      </Button>
      <ModalOverlay className="overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <form
                onSubmit={async (e) => {
                  e.preventDefault();
                  // a portal: React would bubble this submit to a form around the trigger
                  e.stopPropagation();
                  setBusy(true);
                  setError(null);
                  try {
                    await onConfirm(typed);
                    close();
                  } catch (err) {
                    setError(err);
                  } finally {
                    setBusy(false);
                  }
                }}
              >
                <Heading slot="title">{title}</Heading>
                <div className="dialog-body">{children}</div>
                {phrase !== undefined ? (
                  <TextField value={typed} onChange={setTyped} autoFocus className="field">
                    <Label>
                      Type <code className="phrase">{phrase}</code> to confirm
                    </Label>
                    <Input autoComplete="off" spellCheck={false} />
                    <FieldError />
                  </TextField>
                ) : null}
                <ErrorNote error={error} />
                <div className="actions">
                  <Button className="button" onPress={close}>
                    Cancel
                  </Button>
                  <Button
                    type="submit"
                    className={danger ? 'button danger' : 'button primary'}
                    isDisabled={busy || (phrase !== undefined && typed !== phrase)}
                  >
                    {confirmLabel}
                  </Button>
                </div>
              </form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

export function StateBadge({ state }: { state: string }) {
  return <span className={`badge badge-${state.replace(/[^a-z_]/g, '')}`}>{state.replace(/_/g, ' ')}</span>;
}

export function KeyValues({ rows }: { rows: Array<[string, ReactNode]> }) {
  return (
    <dl className="kv">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A scrolling box (job output, a list of paths) that keyboard users can reach and scroll. */
export function Scroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe: scrollable-region-focusable)
    <section className="scroll" tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}
