/** The JSON Schema of the API's error answers, `{ "error": { "code", "message" } }`, for route response schemas. */
export function errorBodySchema<const Codes extends readonly string[]>(codes: Codes) {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string', enum: codes }, message: { type: 'string' } },
      },
    },
  } as const;
}
