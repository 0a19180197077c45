/** The collector's protobuf fast path (collector/fast/): valid requests forwarded as the byte ranges they came in. */
export { prepareProtobufFast } from './fast/prepare.ts';
