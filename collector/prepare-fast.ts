/** The collector's protobuf fast path (collector/fast/): valid requests forwarded as the byte ranges they came in. */
export { FAST_PATH_DECLINES, type FastPathDecline, prepareProtobufFast } from './fast/prepare.ts';
