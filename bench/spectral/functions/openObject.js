// Reports an object schema that accepts undeclared properties (additionalProperties not false).
// Exempt: the inputSchema root when it declares no parameters, a composition (anyOf/oneOf/allOf/$ref)
// without properties of its own, and a typed map (additionalProperties is a schema, no properties).
export default function openObject(targetVal, _options, context) {
  if (targetVal === null || typeof targetVal !== 'object') {
    return [];
  }
  const props = targetVal.properties;
  const hasProps = props !== null && typeof props === 'object' && Object.keys(props).length > 0;
  const isRoot = context.path.length === 3; // ['tools', i, 'inputSchema']
  if (isRoot && !hasProps) return [];
  if (!hasProps && ['anyOf', 'oneOf', 'allOf', '$ref'].some((k) => k in targetVal)) return [];
  const ap = targetVal.additionalProperties;
  if (ap === false || targetVal.unevaluatedProperties === false) return [];
  if (!hasProps && ap !== null && typeof ap === 'object') return [];
  return [{ message: 'Object schema does not set additionalProperties: false' }];
}
