import type { Context } from '../context.js';
import type { FieldErrors } from '../errors.js';

export interface GeoPoint {
  latitude: number;
  longitude: number;
  radiusKm?: number | null;
}

export const DEFAULT_RADIUS_KM = 25;
const EARTH_RADIUS_KM = 6371.0088;
const toRadians = (degrees: number) => (degrees * Math.PI) / 180;

/** Great-circle distance (haversine) in kilometres. */
export function distanceKm(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const dLat = toRadians(b.latitude - a.latitude);
  const dLng = toRadians(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRadians(a.latitude)) * Math.cos(toRadians(b.latitude)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * IDs of venues within the radius of a point: a bounding box narrows the rows in SQL, the exact distance decides.
 */
export async function venueIdsNear(ctx: Context, errors: FieldErrors, field: string, point: GeoPoint): Promise<number[]> {
  const radius = point.radiusKm ?? DEFAULT_RADIUS_KM;
  if (!(point.latitude >= -90 && point.latitude <= 90)) errors.add(`${field}.latitude`, 'must be between -90 and 90');
  if (!(point.longitude >= -180 && point.longitude <= 180)) errors.add(`${field}.longitude`, 'must be between -180 and 180');
  if (!(radius > 0)) errors.add(`${field}.radiusKm`, 'must be greater than 0');
  if (!(radius > 0) || Math.abs(point.latitude) > 90 || Math.abs(point.longitude) > 180) return [];
  const latDelta = radius / 111.32;
  const lngDelta = radius / (111.32 * Math.max(Math.cos(toRadians(point.latitude)), 0.01));
  const nearLongitudes =
    lngDelta >= 180 ? {} : { longitude: { gte: point.longitude - lngDelta, lte: point.longitude + lngDelta } };
  const candidates = await ctx.db.venue.findMany({
    where: { latitude: { gte: point.latitude - latDelta, lte: point.latitude + latDelta }, ...nearLongitudes },
    select: { id: true, latitude: true, longitude: true },
  });
  return candidates
    .filter((venue) => distanceKm(point, { latitude: venue.latitude!, longitude: venue.longitude! }) <= radius)
    .map((venue) => venue.id);
}
