// What the cost chart groups by: a preset (service, model, billing SKU...) or any text field or
// attribute path typed in. The choice goes into the URL (ui/src/metrics-query.ts).
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { GROUP_PRESETS, groupQuery, isGroupField, presetOf, readGroupField } from '../metrics-query';
import { withQuery } from './application-picker';

const CUSTOM = '';

export function ChartGroupPicker() {
  const { path, query, route } = useLocation();
  const field = readGroupField(query);
  const [typed, setTyped] = useState(field);
  const [problem, setProblem] = useState<string>();
  useEffect(() => setTyped(field), [field]);
  const choose = (next: string) => route(withQuery(path, query, groupQuery(next)));
  const apply = (event: Event) => {
    event.preventDefault();
    const next = typed.trim();
    if (!isGroupField(next)) {
      setProblem(
        'Type a text field (service_name, billing.sku_name…) or an attribute path (span_attributes.<key>, resource_attributes.<key>)',
      );
      return;
    }
    setProblem(undefined);
    choose(next);
  };
  return (
    <fieldset class="group-by">
      <legend>Group cost by</legend>
      <label>
        Group
        <select
          value={presetOf(field)?.field ?? CUSTOM}
          onChange={(event) => {
            const value = (event.target as HTMLSelectElement).value;
            if (value !== CUSTOM) choose(value);
          }}
        >
          {GROUP_PRESETS.map((preset) => (
            <option key={preset.field} value={preset.field}>
              {preset.label}
            </option>
          ))}
          <option value={CUSTOM}>Another field or attribute…</option>
        </select>
      </label>
      <form class="group-field" onSubmit={apply}>
        <label>
          Field or attribute path
          <input
            type="text"
            value={typed}
            size={36}
            list="group-field-presets"
            spellcheck={false}
            onInput={(event) => setTyped((event.target as HTMLInputElement).value)}
          />
        </label>
        <datalist id="group-field-presets">
          {GROUP_PRESETS.map((preset) => (
            <option key={preset.field} value={preset.field} />
          ))}
        </datalist>
        <button type="submit">Group</button>
        {problem && (
          <span role="alert" class="error">
            {problem}
          </span>
        )}
      </form>
    </fieldset>
  );
}
