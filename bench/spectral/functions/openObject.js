// Reports an object schema that declares properties but leaves additionalProperties unset, so it
// silently accepts undeclared keys. Exempt: no properties (no parameters, a free-form object, a typed
// map, a composition), additionalProperties set to anything (false closes it; true or a schema opens it
// on purpose), and unevaluatedProperties: false.
export default function openObject(targetVal) {
  if (targetVal === null || typeof targetVal !== 'object') {
    return [];
  }
  const props = targetVal.properties;
  const hasProps = props !== null && typeof props === 'object' && Object.keys(props).length > 0;
  if (!hasProps || targetVal.additionalProperties !== undefined || targetVal.unevaluatedProperties === false) {
    return [];
  }
  return [{ message: 'Object schema declares properties but does not set additionalProperties' }];
}
