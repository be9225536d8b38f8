"use client";
// Inputs that edit one policy value. Each keeps the text being typed locally and reports the
// parsed value upwards, so "1." or a half-typed line never jumps back while the user types.
import { useEffect, useState } from "react";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { cn } from "@/lib/utils";
import { byteUnits, linesToList, listToLines, parseAmount, splitBytes } from "../lib/form-model";

interface ControlProps<T = unknown> {
  id: string;
  value: unknown;
  onChange: (value: T) => void;
  invalid: boolean;
  disabled?: boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function BooleanControl({ id, value, onChange, invalid, disabled }: ControlProps<boolean>) {
  const current = value === true ? "on" : value === false ? "off" : "";
  return (
    <Select
      id={id}
      value={current}
      onChange={(event) => onChange(event.target.value === "on")}
      aria-invalid={invalid}
      disabled={disabled}
      className="w-40"
    >
      {current === "" ? <option value="">Invalid: pick one</option> : null}
      <option value="on">On</option>
      <option value="off">Off</option>
    </Select>
  );
}

export function ChoiceControl({ id, value, onChange, invalid, disabled, choices }: ControlProps<string> & { choices: readonly string[] }) {
  const current = typeof value === "string" && choices.includes(value) ? value : "";
  return (
    <Select
      id={id}
      value={current}
      onChange={(event) => onChange(event.target.value)}
      aria-invalid={invalid}
      disabled={disabled}
      className="w-40"
    >
      {current === "" ? <option value="">Invalid: pick one</option> : null}
      {choices.map((choice) => (
        <option key={choice} value={choice}>
          {choice}
        </option>
      ))}
    </Select>
  );
}

export function AmountControl({ id, value, onChange, invalid, disabled, unit }: ControlProps & { unit?: string }) {
  const [text, setText] = useState(value === undefined || value === null ? "" : String(value));
  // biome-ignore lint/correctness/useExhaustiveDependencies: only an outside change of value (the JSON view, a restored version) resets the text
  useEffect(() => {
    if (!same(parseAmount(text), value)) setText(value === undefined || value === null ? "" : String(value));
  }, [value]); // only an outside change (the JSON view, a restored version) resets the text
  return (
    <div className="flex items-center gap-2">
      <Input
        id={id}
        inputMode="numeric"
        value={text}
        aria-invalid={invalid}
        disabled={disabled}
        className="w-40"
        onChange={(event) => {
          setText(event.target.value);
          onChange(parseAmount(event.target.value));
        }}
      />
      {unit ? <span className="text-sm text-muted-foreground">{unit}</span> : null}
    </div>
  );
}

export function BytesControl({ id, value, onChange, invalid, disabled }: ControlProps) {
  const [state, setState] = useState(() => splitBytes(value));
  // biome-ignore lint/correctness/useExhaustiveDependencies: only an outside change of value (the JSON view, a restored version) resets the text
  useEffect(() => {
    if (!same(parseAmount(state.amount, state.unit), value)) setState(splitBytes(value));
  }, [value]); // only an outside change (the JSON view, a restored version) resets the text
  const update = (next: { amount: string; unit: number }) => {
    setState(next);
    onChange(parseAmount(next.amount, next.unit));
  };
  return (
    <div className="flex items-center gap-2">
      <Input
        id={id}
        inputMode="decimal"
        value={state.amount}
        aria-invalid={invalid}
        disabled={disabled}
        className="w-32"
        onChange={(event) => update({ ...state, amount: event.target.value })}
      />
      <Select
        aria-label="Unit"
        value={state.unit}
        disabled={disabled}
        className="w-24"
        onChange={(event) => update({ ...state, unit: Number(event.target.value) })}
      >
        {byteUnits.map((unit) => (
          <option key={unit.label} value={unit.bytes}>
            {unit.label}
          </option>
        ))}
      </Select>
    </div>
  );
}

export function BudgetControl({ id, value, onChange, invalid, disabled }: ControlProps) {
  const capped = value !== null;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Select
        aria-label="Budget cap mode"
        value={capped ? "cap" : "none"}
        disabled={disabled}
        className="w-32"
        onChange={(event) => onChange(event.target.value === "none" ? null : 8 * 1024 ** 3)}
      >
        <option value="none">No cap</option>
        <option value="cap">Cap at</option>
      </Select>
      {capped ? <BytesControl id={id} value={value} onChange={onChange} invalid={invalid} disabled={disabled} /> : null}
    </div>
  );
}

export function ListControl({ id, value, onChange, invalid, disabled }: ControlProps<string[]>) {
  const [text, setText] = useState(listToLines(value));
  // biome-ignore lint/correctness/useExhaustiveDependencies: only an outside change of value (the JSON view, a restored version) resets the text
  useEffect(() => {
    if (!same(linesToList(text), value)) setText(listToLines(value));
  }, [value]); // only an outside change (the JSON view, a restored version) resets the text
  return (
    <textarea
      id={id}
      value={text}
      rows={Math.min(8, Math.max(2, text.split("\n").length + 1))}
      aria-invalid={invalid}
      disabled={disabled}
      spellCheck={false}
      placeholder="One per line"
      onChange={(event) => {
        setText(event.target.value);
        onChange(linesToList(event.target.value));
      }}
      className={cn(
        "w-full rounded-md border border-input bg-card px-3 py-2 font-mono text-xs shadow-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring disabled:opacity-50 aria-invalid:border-destructive",
      )}
    />
  );
}
