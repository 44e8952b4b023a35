// GraphQL answers written in slices (http/slicedJson.ts), in yoga's own result processing: a result
// without errors gets its text made in slices before yoga writes it, and yoga writes that text (its
// regular result processor calls a result's `stringify` when it has one). A megabyte of timeline then
// does not hold other organizations' requests while it becomes text. Results with errors are left to
// yoga as they are (they are small, and yoga takes its internal extensions out of them first); streams
// are not single results.
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { stringifyInSlices } from '../http/slicedJson.js';

export function slicedAnswers(): Plugin {
  return {
    async onResultProcess(payload) {
      const { result } = payload;
      if (isAsyncIterable(result) || Array.isArray(result) || result.errors?.length) return;
      if ((result.extensions as { http?: unknown } | undefined)?.http) return;
      const text = await stringifyInSlices(result);
      payload.setResult({ ...result, stringify: () => text });
    },
  };
}
