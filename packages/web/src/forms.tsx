import {
  Checkbox,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Button as RacButton,
  Select,
} from 'react-aria-components';
import { SelectValue } from 'react-aria-components';
import './pages.css';

/**
 * A labelled choice among fixed values (React Aria Select: a button that opens a listbox, arrow
 * keys move, Enter picks, Escape closes). `hideLabel` keeps the label for screen readers only
 * (a cell of a matrix whose row and column already say what it is).
 */
export function Choice<T extends string>({
  label,
  value,
  options,
  onChange,
  isDisabled,
  hideLabel,
}: {
  label: string;
  value: T;
  options: ReadonlyArray<readonly [T, string]>;
  onChange: (v: T) => void;
  isDisabled?: boolean;
  hideLabel?: boolean;
}) {
  return (
    <Select
      className={hideLabel ? 'select' : 'select field'}
      selectedKey={value}
      onSelectionChange={(k) => onChange(k as T)}
      isDisabled={isDisabled ?? false}
      aria-label={hideLabel ? label : undefined}
    >
      <Label className={hideLabel ? 'sr-only' : undefined}>{label}</Label>
      <RacButton className="button small">
        <SelectValue />
        <span aria-hidden="true"> ▾</span>
      </RacButton>
      <Popover className="popover">
        <ListBox className="listbox">
          {options.map(([id, text]) => (
            <ListBoxItem key={id} id={id} className="option">
              {text}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}

export function Check({
  children,
  value,
  onChange,
  isDisabled,
  hideLabel,
}: {
  children: string;
  value: boolean;
  onChange: (v: boolean) => void;
  isDisabled?: boolean;
  /** The label for screen readers only (a matrix cell whose row and column say what it is). */
  hideLabel?: boolean;
}) {
  return (
    <Checkbox className="checkbox" isSelected={value} onChange={onChange} isDisabled={isDisabled ?? false}>
      <span className="box" aria-hidden="true" />
      {hideLabel ? <span className="sr-only">{children}</span> : children}
    </Checkbox>
  );
}

/** A copy of `set` with `key` in it (`on`) or not: the state update of a checkbox list. */
export function toggled<T>(set: ReadonlySet<T>, key: T, on: boolean): Set<T> {
  const next = new Set(set);
  if (on) next.add(key);
  else next.delete(key);
  return next;
}
