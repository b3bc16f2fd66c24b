// Reports each entry of an object schema's `required` that is not a key of its `properties`.
export default function requiredInProperties(targetVal, _options, context) {
  if (targetVal === null || typeof targetVal !== 'object' || !Array.isArray(targetVal.required)) {
    return [];
  }
  const props = targetVal.properties !== null && typeof targetVal.properties === 'object' ? targetVal.properties : {};
  const results = [];
  targetVal.required.forEach((name, i) => {
    if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(props, name)) {
      results.push({
        message: `required names ${JSON.stringify(name)}, which is not in properties`,
        path: [...context.path, 'required', i],
      });
    }
  });
  return results;
}
