import {
  type ApiMessageAndVersion,
  MetadataDelta,
  MetadataImage,
  MetadataProvenance,
  MetadataRecordType,
} from '@kraft/metadata';
import { SeededRandom } from '@kraft/raft';
import { describe, expect, it } from 'vitest';
import { imageDigest } from './image-digest.js';
import { MetadataRecordGenerator } from './metadata-record-generator.js';

function replay(records: readonly ApiMessageAndVersion[], offset: number): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  for (const record of records) delta.replay(record);
  return delta.apply(new MetadataProvenance(offset, 1, -1, true));
}

function drawnRecords(operations: number): ApiMessageAndVersion[] {
  const generator = new MetadataRecordGenerator(new SeededRandom(3), 1);
  let image = MetadataImage.EMPTY;
  const records: ApiMessageAndVersion[] = [];
  for (let index = 0; index < operations; index += 1) {
    const operation = generator.nextOperation(image);
    const delta = new MetadataDelta(image);
    for (const record of operation) delta.replay(record);
    image = delta.apply(MetadataProvenance.EMPTY);
    records.push(...operation);
  }
  return records;
}

describe('imageDigest', () => {
  const records = drawnRecords(400);
  const image = replay(records, records.length - 1);

  it('is the same for an image rebuilt from its own records (a snapshot load), topics in another order, at another offset', () => {
    const imageRecords = [...image.records()];
    const topicStarts = imageRecords.flatMap((record, index) =>
      record.recordType === MetadataRecordType.TOPIC_RECORD ? [index] : [],
    );
    const firstTopic = topicStarts[0] ?? imageRecords.length;
    const topics = topicStarts.map((start, index) =>
      imageRecords.slice(start, topicStarts[index + 1] ?? imageRecords.length),
    );
    const reordered = [...imageRecords.slice(0, firstTopic), ...topics.reverse().flat()];
    expect(topics.length).toBeGreaterThan(1);
    const rebuilt = replay(reordered, records.length + 10);
    expect(imageDigest(rebuilt)).toEqual(imageDigest(image));
    expect(imageDigest(image).recordCount).toBe([...image.records()].length);
  });

  it('changes when one record of the image changes', () => {
    const fewer = replay(records.slice(0, -1), records.length - 2);
    expect(imageDigest(fewer).digest).not.toBe(imageDigest(image).digest);
  });
});
