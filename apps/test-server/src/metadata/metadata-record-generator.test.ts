import { MetadataDelta, MetadataImage, MetadataProvenance, MetadataRecordType } from '@kraft/metadata';
import { SeededRandom } from '@kraft/raft';
import { describe, expect, it } from 'vitest';
import { MAX_TOPICS, MetadataRecordGenerator } from './metadata-record-generator.js';

function run(seed: number, operations: number, epoch = 3) {
  const generator = new MetadataRecordGenerator(new SeededRandom(seed), epoch);
  let image = MetadataImage.EMPTY;
  const counts = new Map<number, number>();
  let maxTopics = 0;
  for (let index = 0; index < operations; index += 1) {
    const delta = new MetadataDelta(image);
    for (const record of generator.nextOperation(image)) {
      // A record that does not fit the image throws MetadataReplayError here.
      delta.replay(record);
      counts.set(record.recordType, (counts.get(record.recordType) ?? 0) + 1);
    }
    image = delta.apply(new MetadataProvenance(index, epoch, -1, true));
    maxTopics = Math.max(maxTopics, image.topics.topicsById.size);
  }
  return { image, counts, maxTopics };
}

describe('MetadataRecordGenerator', () => {
  it('writes metadata.version first, then only records that replay on the image they were drawn from', () => {
    const generator = new MetadataRecordGenerator(new SeededRandom(1), 1);
    const [first] = generator.nextOperation(MetadataImage.EMPTY);
    expect(first?.recordType).toBe(MetadataRecordType.FEATURE_LEVEL_RECORD);
    const { counts } = run(7, 5_000);
    for (const type of [
      MetadataRecordType.TOPIC_RECORD,
      MetadataRecordType.PARTITION_RECORD,
      MetadataRecordType.REMOVE_TOPIC_RECORD,
      MetadataRecordType.PARTITION_CHANGE_RECORD,
      MetadataRecordType.REGISTER_BROKER_RECORD,
      MetadataRecordType.BROKER_REGISTRATION_CHANGE_RECORD,
      MetadataRecordType.FENCE_BROKER_RECORD,
      MetadataRecordType.UNFENCE_BROKER_RECORD,
    ]) {
      expect(counts.get(type) ?? 0, `record type ${type}`).toBeGreaterThan(0);
    }
  });

  it('keeps the number of live topics bounded', () => {
    expect(run(11, 20_000).maxTopics).toBeLessThanOrEqual(MAX_TOPICS);
  });

  it('draws the same records from the same seed, and other ones from another seed', () => {
    const digest = (seed: number) =>
      JSON.stringify([...run(seed, 300).image.records()], (_key, value) =>
        typeof value === 'bigint' ? value.toString() : value,
      );
    expect(digest(5)).toBe(digest(5));
    expect(digest(5)).not.toBe(digest(6));
  });

  it('gives a new leader epoch ids of its own', () => {
    const earlier = run(5, 200, 4).image;
    const generator = new MetadataRecordGenerator(new SeededRandom(5), 5);
    for (let index = 0; index < 200; index += 1) {
      for (const record of generator.nextOperation(earlier)) {
        if (record.recordType === MetadataRecordType.TOPIC_RECORD) {
          expect(earlier.topics.getTopic(record.data.topicId)).toBeUndefined();
          expect(earlier.topics.getTopicByName(record.data.name)).toBeUndefined();
        }
      }
    }
  });
});
